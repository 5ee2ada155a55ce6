import { useMutation, useQueryClient } from '@tanstack/react-query'
import type { BuildProgress, UserEditsAnswer } from '../../../../shared/queueBuild'
import { useClient } from '../../app/ClientProvider'
import { callKey } from '../../app/queries'
import { ActionButton } from '../../ui'
import { AppFieldError } from './AppFieldError'

type Question = NonNullable<BuildProgress['userEdits']>

/** Answers the build's question; the question goes once `build.user-edits-answered` arrives. */
function useAnswerUserEdits(projectId: number) {
  const client = useClient()
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (answer: UserEditsAnswer) => client.call('queue.answerUserEdits', { projectId, answer }),
    onSettled: () => queryClient.invalidateQueries({ queryKey: callKey('queue.buildStatus', { projectId }) }),
  })
}

/**
 * A build with lanes waits before applying a merged task that would overwrite files the user changed during the
 * build (DESIGN.md §18): keep the user's version, take the task's (the user's stays in the safety snapshot
 * task-N-pre), or stop the build with nothing written.
 */
export function UserEditsQuestion({ projectId, question }: { projectId: number; question: Question }) {
  const answer = useAnswerUserEdits(projectId)
  const busy = answer.isPending ? 'Answering…' : null
  const pre = `task-${question.task}-pre`
  const post = `task-${question.task}-post`
  const files = question.paths.length === 1 ? 'a file' : `${question.paths.length} files`
  return (
    <div className="queue-approval" role="group" aria-label="Your edits">
      <p>
        “{question.name}” (task {question.task}, lane {question.lane}) changes {files} you changed during the
        build. Nothing is written until you choose which version goes in your folder.
      </p>
      <ul className="mono" aria-label="Files you changed">
        {question.paths.map((p) => (
          <li key={p}>{p}</li>
        ))}
      </ul>
      <div className="queue-approval-actions">
        <ActionButton
          size="sm"
          variant="primary"
          title={`Your version stays; the task's other changes are applied (${post} holds your version)`}
          disabledReason={busy}
          onAction={() => answer.mutateAsync('keep-theirs')}
        >
          Keep my edits
        </ActionButton>
        <ActionButton
          size="sm"
          title={`The task's version is written; yours stays in the safety snapshot ${pre}`}
          disabledReason={busy}
          onAction={() => answer.mutateAsync('take-task')}
        >
          Take the task&apos;s
        </ActionButton>
        <ActionButton
          size="sm"
          variant="ghost"
          title="Nothing is written: the build pauses, and the next build runs the task again on top of your edits"
          disabledReason={busy}
          onAction={() => answer.mutateAsync('stop')}
        >
          Stop the build
        </ActionButton>
      </div>
      <p className="muted queue-note">
        Taking the task&apos;s version keeps yours in the safety snapshot {pre} (Timeline: Compare or Roll
        back).
      </p>
      <AppFieldError error={answer.error} />
    </div>
  )
}
