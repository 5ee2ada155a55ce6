import type { ImageAttachment } from '../../attachments'
import type { TaskCaps } from '../../../shared/budget'
import type { LoopEvent } from '../../../shared/loopEvents'
import { parsedRequest } from '../../store/conversationsRepo'
import type { ChatContext, ProjectFolder } from './context'

/** The card a chat message started, until its task finishes: linked to the task and run as the loop reports them. */
interface PendingCard {
  messageId: number
  conversationId: number
  projectPath: string
  task: number | null
  runId: number | null
}

/**
 * The chat's task cards: a card follows its task through the loop's events (task, run, requirements, the words
 * of its outcome) until the task finishes. One pending card per project.
 */
export class ChatCards {
  private readonly pending = new Map<number, PendingCard>()

  constructor(private readonly chat: ChatContext) {}

  /** Starts a card's task through the runner; the card follows the loop's events from here. */
  start(
    project: ProjectFolder,
    conversationId: number,
    cardId: number,
    request: string,
    caps: TaskCaps = {},
    images: ImageAttachment[] = [],
  ) {
    const card = { messageId: cardId, conversationId, projectPath: project.path, task: null, runId: null }
    return this.follow(project.id, card, () =>
      this.chat.deps.runner.start(project, request, undefined, { ...caps, images }),
    )
  }

  /** The same card follows the resumed run, back to Running and on to its outcome. */
  resume(
    project: ProjectFolder,
    card: { messageId: number; conversationId: number },
    task: number,
    runId: number,
  ) {
    const pending = { ...card, projectPath: project.path, task, runId }
    return this.follow(project.id, pending, () => this.chat.deps.runner.resume(project))
  }

  /** The card is the project's pending one while `run` starts its task; if that fails, the previous one is back. */
  private async follow(projectId: number, card: PendingCard, run: () => Promise<unknown>): Promise<void> {
    const previous = this.pending.get(projectId)
    this.pending.set(projectId, card)
    try {
      await run()
    } catch (err) {
      if (previous) this.pending.set(projectId, previous)
      else this.pending.delete(projectId)
      throw err
    }
  }

  /** A loop event of the project: links the pending card to its task and run, and keeps its words. */
  onLoopEvent(projectId: number, event: LoopEvent): void {
    const card = this.pending.get(projectId)
    if (!card) return
    if (event.type === 'task.started') this.linkTask(projectId, card, event)
    else if (card.runId === null && card.task === event.task) this.linkRun(projectId, card)
    if (card.task !== event.task) return
    // The card's words arrive with the status, not a moment later with loop.finished: this listener runs
    // before the clients hear of the event.
    const words = cardWords(event)
    if (words !== null) this.chat.repo.update(card.messageId, { outcome: words })
    if (event.type === 'task.parsed') {
      // An answer continues the task with a new parse: the questions it asked before stay on its card.
      const asked = parsedRequest(this.chat.repo.requirementsOf(card.messageId)).questions ?? []
      const { clarification, clarificationOptions } = event.parsed
      const questions = clarification
        ? [...asked, { text: clarification, options: clarificationOptions ?? [] }]
        : asked
      const requirements = {
        requirements: event.parsed.requirements,
        preserve: event.parsed.scope.preserve,
        ...(questions.length ? { questions } : {}),
      }
      this.chat.repo.update(card.messageId, { requirements: JSON.stringify(requirements) })
    }
  }

  /** The task ended (`loop.finished`): the pending card gets its outcome, or the error if no task began. */
  onFinished(projectId: number, message: string): void {
    const card = this.pending.get(projectId)
    if (!card) return
    this.pending.delete(projectId)
    if (card.runId === null && card.task !== null) this.linkRun(projectId, card)
    this.chat.repo.update(card.messageId, card.task === null ? { error: message } : { outcome: message })
    this.chat.changed(projectId, card.conversationId)
  }

  private linkTask(projectId: number, card: PendingCard, event: { task: number; continued?: boolean }) {
    const { repo } = this.chat
    card.task = event.task
    if (event.continued) {
      // An answer to a clarification continues the task: its card is the one already waiting, not a new one.
      const runId = repo.latestRunId(card.projectPath, event.task)
      const existing = runId === null ? null : repo.cardForRun(card.conversationId, runId)
      if (existing !== null && existing !== card.messageId) {
        repo.remove([card.messageId])
        card.messageId = existing
      }
    }
    repo.update(card.messageId, { task: event.task })
    // A new task's run row is written just after task.started; a continued one's exists already.
    this.linkRun(projectId, card)
  }

  private linkRun(projectId: number, card: PendingCard) {
    if (card.task === null) return
    card.runId = this.chat.repo.latestRunId(card.projectPath, card.task)
    if (card.runId !== null) this.chat.repo.update(card.messageId, { runId: card.runId })
    this.chat.changed(projectId, card.conversationId)
  }
}

/** The words a loop event gives its card: a completed task's summary, or the question it waits on. */
function cardWords(event: LoopEvent): string | null {
  if (event.type === 'task.completed') return event.summary
  if (event.type === 'clarification.needed') return event.question
  return null
}
