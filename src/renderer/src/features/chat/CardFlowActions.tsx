import type { TaskCardDto } from '../../../../shared/api/chat'
import { FailedTaskActions } from './FailedTaskActions'
import { QuestionActions } from './QuestionActions'

/** How a card's task goes on from here: answer or dismiss its question; retry or edit a failed one. */
export function CardFlowActions({ card, projectId }: { card: TaskCardDto; projectId: number }) {
  if (card.status === 'waiting') return <QuestionActions card={card} projectId={projectId} />
  if (card.status === 'failed') return <FailedTaskActions card={card} projectId={projectId} />
  return null
}
