import { Play } from 'lucide-react'
import { errorMessage } from '../../app/queries'
import { Button } from '../../ui'
import { useProject, useRunning } from '../../app/projectQueries'
import { useResume } from './queries'

/**
 * "Resume" on an interrupted task (its process died mid-task): continues the same task from its state and
 * iteration. Disabled, saying why, while a task runs or once a later task has started.
 */
export function ResumeButton({ projectId, task, runId }: { projectId: number; task: number; runId: number }) {
  const running = useRunning(projectId)
  const lastTask = useProject(projectId).data?.state.taskCount ?? task
  const resume = useResume(projectId)
  const reason = running
    ? 'Another task is running: wait for it to finish (or stop it), then resume this one.'
    : lastTask > task
      ? `Task ${lastTask} started after this one, so this task can no longer be resumed. Roll back to before it to retry from its start.`
      : null
  return (
    <>
      <Button
        size="sm"
        variant="primary"
        icon={<Play size={13} aria-hidden />}
        disabledReason={reason}
        disabled={resume.isPending}
        title={reason ? undefined : 'Continue this task from where it stopped'}
        onClick={() => resume.mutate(runId)}
      >
        Resume
      </Button>
      {resume.error ? (
        <p className="field-error" role="alert" style={{ flexBasis: '100%' }}>
          {errorMessage(resume.error)}
        </p>
      ) : null}
    </>
  )
}
