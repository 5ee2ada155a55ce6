import { MessageSquareReply, XCircle } from 'lucide-react'
import type { TaskCardDto } from '../../../../shared/api/chat'
import { FieldError } from '../../app/FieldError'
import { ActionButton, Button } from '../../ui'
import { useChatUi } from './chatUi'
import { useDismissQuestion } from './queries'

const DISMISS_HINT =
  'Ends this task without an answer: it shows as Stopped, the snapshot from before it is kept, and your next message starts a new task.'

/** Dismiss: the waiting task ends as Stopped. On the card and in the composer. */
export function DismissQuestionButton({
  projectId,
  task,
  label = 'Dismiss',
}: {
  projectId: number
  task: number
  label?: string
}) {
  const dismiss = useDismissQuestion(projectId)
  return (
    <span className="question-dismiss">
      <ActionButton
        size="sm"
        variant="ghost"
        icon={<XCircle size={13} aria-hidden />}
        title={DISMISS_HINT}
        onAction={() => dismiss.mutateAsync(task)}
      >
        {label}
      </ActionButton>
      <FieldError error={dismiss.error} />
    </span>
  )
}

/**
 * A task waiting for an answer says how to go on: Answer (the message box, in Task mode, says it answers this
 * question) or Dismiss (the task ends as Stopped).
 */
export function QuestionActions({ card, projectId }: { card: TaskCardDto; projectId: number }) {
  if (card.status !== 'waiting' || card.task === null) return null
  return (
    <div className="card-flow-actions" role="group" aria-label="Ralph’s question">
      <Button
        size="sm"
        variant="primary"
        icon={<MessageSquareReply size={13} aria-hidden />}
        title="Write your answer in the message box below"
        onClick={() => {
          const ui = useChatUi.getState()
          ui.view(projectId, null)
          ui.setMode(projectId, 'task')
          ui.focusComposer(projectId)
        }}
      >
        Answer
      </Button>
      <DismissQuestionButton projectId={projectId} task={card.task} />
    </div>
  )
}
