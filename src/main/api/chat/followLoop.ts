import type { EventPayload } from '../../../shared/api/contract'
import type { RunJournal } from '../../tasks/runJournal'
import type { ChatAsk } from './ask'
import type { ChatCards } from './cards'
import type { ChatContext } from './context'
import type { ChatQuestion } from './question'
import type { ChatQueue } from './queued'

export interface ChatParts {
  chat: ChatContext
  journal: RunJournal
  cards: ChatCards
  queue: ChatQueue
  ask: ChatAsk
  question: ChatQuestion
}

/**
 * What the chat hears on the bus: the loop's text and events go to the run journal and the pending card, the end
 * of a task moves the chat's queue on, and a rollback leaves a notice in the conversation.
 */
export function followLoop({ chat, journal, cards, queue, question }: Omit<ChatParts, 'ask'>): () => void {
  return chat.deps.events.subscribe((event) => {
    switch (event.name) {
      case 'loop.delta': {
        const { projectId, task, iteration, text } = event.payload
        journal.onDelta(projectId, task, iteration, text)
        return
      }
      case 'loop.event':
        journal.onEvent(event.payload.projectId, event.payload.event)
        cards.onLoopEvent(event.payload.projectId, event.payload.event)
        return
      case 'loop.finished': {
        const { projectId, message, status } = event.payload
        journal.onFinished(projectId)
        cards.onFinished(projectId, message)
        // The queue moves on when a task ends; one waiting for an answer has not ended, so the queue waits too.
        // A stopped task's follow-ups wait for the user to say whether to run them: Stop means stop. An
        // interrupted one's wait for the next start (Ralph is closing).
        if (status !== 'needs-clarification' && status !== 'stopped' && status !== 'interrupted') {
          queue
            .startNext(projectId)
            .catch((err) =>
              chat.deps.logger.error(`the next queued task of project ${projectId} could not start`, err),
            )
        }
        return
      }
      case 'snapshot.rolledBack':
        noteRollback(chat, question, event.payload).catch((err) =>
          chat.deps.logger.error(
            `the chat could not note the rollback of project ${event.payload.projectId}`,
            err,
          ),
        )
        return
    }
  })
}

/**
 * The chat says when the files went back in time, wherever the rollback came from. A task waiting for an answer
 * that the rollback took the project back before ends as Stopped, and the notice says so.
 */
async function noteRollback(
  chat: ChatContext,
  question: ChatQuestion,
  { projectId, report, undo }: EventPayload<'snapshot.rolledBack'>,
) {
  const path = chat.deps.projectPath(projectId)
  const closed =
    path === null ? [] : await question.closeStale({ id: projectId, path }, rolledBackWords(report.target))
  const conversation = chat.repo.current(projectId)
  const text = rollbackNotice(report, undo) + closedNotice(closed)
  chat.repo.add(conversation.id, { kind: 'notice', text })
  chat.changed(projectId, conversation.id)
}

const rolledBackWords = (target: string) =>
  `Ended without an answer: the project was rolled back to ${target}, before Ralph asked. The snapshot from before this task is kept.`

const closedNotice = (tasks: number[]) =>
  tasks.length === 0
    ? ''
    : ` Task ${tasks.join(', ')} no longer waits for your answer: it ended as Stopped, and your next message starts a new task.`

export function rollbackNotice(report: { target: string; safetyTag: string | null }, undo: boolean): string {
  return undo
    ? `Undid the rollback: the files are back as they were (${report.target}).`
    : `Rolled back to ${report.target}.` +
        (report.safetyTag ? ` The state before it is saved as ${report.safetyTag}.` : '')
}
