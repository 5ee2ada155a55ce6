import { ListX, Pause, Play } from 'lucide-react'
import type { ChatMessageDto } from '../../../../shared/api/chat'
import { FieldError } from '../../app/FieldError'
import { ActionButton, Button } from '../../ui'
import { useChatUi } from './chatUi'
import { useQueuedAfterStop } from './queries'

/**
 * Stop means stop: a stopped task's queued follow-ups do not start by themselves. While they wait, this asks what
 * to do with them: run them (the oldest starts, the others follow), keep them queued, or remove them.
 */
export function StopQueuePrompt({
  projectId,
  messages,
  running,
}: {
  projectId: number
  /** The conversation, newest first. */
  messages: ChatMessageDto[]
  running: boolean
}) {
  const kept = useChatUi((s) => s.keptQueued[projectId] ?? null)
  const action = useQueuedAfterStop(projectId)
  const stopped = messages.find((m) => m.kind === 'task' && m.card && m.card.status !== 'queued')?.card
  const queued = messages.filter((m) => m.kind === 'task' && m.card?.status === 'queued').map((m) => m.id)
  if (running || !stopped || stopped.status !== 'stopped' || stopped.task === null || !queued.length)
    return null
  if (kept === stopped.task) return null
  const oldestFirst = [...queued].reverse()
  const n = queued.length
  return (
    <section className="stop-queue-prompt" role="group" aria-label="Queued after Stop">
      <p className="stop-queue-text">
        <strong>Task {stopped.task} was stopped.</strong>{' '}
        {n === 1 ? 'A queued message waits' : `${n} queued messages wait`} behind it and did not start. Run
        them now?
      </p>
      <div className="stop-queue-actions">
        <ActionButton
          size="sm"
          variant="primary"
          icon={<Play size={13} aria-hidden />}
          onAction={() => action.mutateAsync({ action: 'run', ids: oldestFirst })}
        >
          Run them
        </ActionButton>
        <Button
          size="sm"
          icon={<Pause size={13} aria-hidden />}
          onClick={() => useChatUi.getState().keepQueued(projectId, stopped.task!)}
        >
          Keep them queued
        </Button>
        <ActionButton
          size="sm"
          variant="ghost"
          icon={<ListX size={13} aria-hidden />}
          onAction={() => action.mutateAsync({ action: 'remove', ids: oldestFirst })}
        >
          Remove them
        </ActionButton>
      </div>
      <FieldError error={action.error} />
    </section>
  )
}
