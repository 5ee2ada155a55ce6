import type { EventPayload } from '../../../shared/api/contract'
import type { RunJournal } from '../../tasks/runJournal'
import type { ChatAsk } from './ask'
import type { ChatCards } from './cards'
import type { ChatContext } from './context'
import type { ChatQueue } from './queued'

export interface ChatParts {
  chat: ChatContext
  journal: RunJournal
  cards: ChatCards
  queue: ChatQueue
  ask: ChatAsk
}

/**
 * What the chat hears on the bus: the loop's text and events go to the run journal and the pending card, the end
 * of a task moves the chat's queue on, and a rollback leaves a notice in the conversation.
 */
export function followLoop({ chat, journal, cards, queue }: Omit<ChatParts, 'ask'>): () => void {
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
        if (status !== 'needs-clarification') {
          queue
            .startNext(projectId)
            .catch((err) =>
              chat.deps.logger.error(`the next queued task of project ${projectId} could not start`, err),
            )
        }
        return
      }
      case 'snapshot.rolledBack':
        noteRollback(chat, event.payload)
        return
    }
  })
}

/** The chat says when the files went back in time, wherever the rollback came from. */
function noteRollback(chat: ChatContext, { projectId, report, undo }: EventPayload<'snapshot.rolledBack'>) {
  const conversation = chat.repo.current(projectId)
  chat.repo.add(conversation.id, { kind: 'notice', text: rollbackNotice(report, undo) })
  chat.changed(projectId, conversation.id)
}

export function rollbackNotice(report: { target: string; safetyTag: string | null }, undo: boolean): string {
  return undo
    ? `Undid the rollback: the files are back as they were (${report.target}).`
    : `Rolled back to ${report.target}.` +
        (report.safetyTag ? ` The state before it is saved as ${report.safetyTag}.` : '')
}
