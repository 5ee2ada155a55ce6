import { Play, X } from 'lucide-react'
import type { ChatMessageDto } from '../../../../shared/api/chat'
import { FieldError } from '../../app/FieldError'
import { ActionButton, Badge } from '../../ui'
import { useRunning } from '../../app/projectQueries'
import { useBuildStatus } from '../queue'
import { statusWord } from './format'
import { useQueuedAction } from './queries'

/**
 * A task sent while another ran: it waits here and starts when that one ends. It can be removed before then,
 * or started at once when nothing runs (after a restart, or when the last task waits for an answer).
 */
export function QueuedCard({ message, projectId }: { message: ChatMessageDto; projectId: number }) {
  const building = useBuildStatus(projectId).data?.running ?? false
  // A panel build holds the task lock: `tasks.running` says yes then, but nothing starts this card when it ends.
  const running = useRunning(projectId) && !building
  const action = useQueuedAction(projectId)
  const { label, tone } = statusWord.queued
  return (
    <article className="task-card task-card-queued" aria-label="Queued task">
      <header className="task-card-header">
        <h3 className="task-card-title">Queued task</h3>
        <Badge tone={tone}>{label}</Badge>
      </header>
      <p className="task-card-meta">
        {running
          ? 'Starts when the running task ends.'
          : building
            ? 'Waiting: start it once the build ends, or remove it.'
            : 'Waiting: start it now, or remove it.'}
      </p>
      <div className="task-card-actions">
        <ActionButton
          size="sm"
          icon={<Play size={13} aria-hidden />}
          disabledReason={
            running
              ? 'A task is running: this one starts by itself when that one ends.'
              : building
                ? 'A build is running: start this task after it ends or is stopped.'
                : null
          }
          disabled={action.isPending}
          onAction={() => action.mutateAsync({ action: 'start', messageId: message.id })}
        >
          Start now
        </ActionButton>
        <ActionButton
          size="sm"
          variant="ghost"
          icon={<X size={13} aria-hidden />}
          disabled={action.isPending}
          onAction={() => action.mutateAsync({ action: 'remove', messageId: message.id })}
        >
          Remove
        </ActionButton>
      </div>
      <FieldError error={action.error} />
    </article>
  )
}
