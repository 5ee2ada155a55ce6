import { MessageSquareReply, XCircle } from 'lucide-react'
import type { PendingQuestionDto } from '../../../../shared/api/chat'
import { FieldError } from '../../app/FieldError'
import { ActionButton, Button, Dialog, DialogContent } from '../../ui'
import { useChatUi } from './chatUi'
import { useDismissQuestion } from './queries'

/**
 * New conversation while a task waits for an answer asks first: answer it (back to the message box), or end that
 * task (Stopped, its pre-task snapshot kept) and start the new conversation. Never silently carries the question on.
 */
export function NewConversationDialog({
  open,
  onOpenChange,
  projectId,
  pending,
  onEnded,
}: {
  open: boolean
  onOpenChange(open: boolean): void
  projectId: number
  pending: PendingQuestionDto
  /** Starts the new conversation once the task has ended. */
  onEnded(): Promise<unknown>
}) {
  const dismiss = useDismissQuestion(projectId)
  const about = pending.title ? ` about ${pending.title}` : ''
  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogContent
        title={`Task ${pending.task} waits for your answer`}
        description={
          <>
            Ralph asked{about}: {pending.question ? `“${pending.question}”` : 'a question about this task.'}{' '}
            Answer it first, or end that task: it shows as Stopped, the snapshot from before it is kept, and
            the new conversation starts.
          </>
        }
      >
        <FieldError error={dismiss.error} />
        <div className="dialog-actions new-conversation-actions">
          <Button
            icon={<MessageSquareReply size={14} aria-hidden />}
            onClick={() => {
              onOpenChange(false)
              const ui = useChatUi.getState()
              ui.setMode(projectId, 'task')
              ui.focusComposer(projectId)
            }}
          >
            Answer it first
          </Button>
          <ActionButton
            variant="danger"
            icon={<XCircle size={14} aria-hidden />}
            onAction={async () => {
              await dismiss.mutateAsync(pending.task)
              onOpenChange(false)
              await onEnded()
            }}
          >
            End task {pending.task} and start new
          </ActionButton>
        </div>
      </DialogContent>
    </Dialog>
  )
}
