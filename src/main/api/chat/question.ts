import type { chatCalls, PendingQuestionDto } from '../../../shared/api/chat'
import { AppError } from '../../../shared/errors'
import { closeStaleQuestions, endWaitingTask, pendingQuestion } from '../../loop'
import { RunsRepo } from '../../store'
import type { Handlers } from '../types'
import type { ChatContext, ProjectFolder } from './context'

const about = (p: PendingQuestionDto) => (p.title ? ` about “${p.title}”` : '')

/**
 * The task waiting for the user's answer (DESIGN.md §6's `waiting`): it is answered only on purpose (`chat.send`
 * with `answering`), dismissed from its card or the composer, and closed when a rollback takes the project back
 * before it, so no card says "Waiting for your answer" for ever.
 */
export class ChatQuestion {
  private readonly runs: RunsRepo

  constructor(private readonly chat: ChatContext) {
    this.runs = new RunsRepo(chat.deps.db)
  }

  /** The project's task waiting for an answer, or null. */
  pending(project: ProjectFolder): Promise<PendingQuestionDto | null> {
    return pendingQuestion(project.path, this.runs)
  }

  /**
   * A Task message meets the waiting question only on purpose: refused when a task waits and the message does
   * not say it answers it, and when it says it answers a task that no longer waits.
   */
  async checkAnswering(project: ProjectFolder, answering: number | undefined): Promise<void> {
    const pending = await this.pending(project)
    if (pending && answering !== pending.task) {
      throw new AppError(
        'busy',
        `Task ${pending.task} waits for your answer to its question${about(pending)}. Answer it, or end that task ` +
          `(Dismiss on its card), then send a new task. Your message was not sent.`,
      )
    }
    if (!pending && answering !== undefined) {
      throw new AppError(
        'not-found',
        `Task ${answering} no longer waits for an answer (it was dismissed or rolled back), so your message was not ` +
          `sent as its answer. Send it again to start a new task.`,
      )
    }
  }

  /** Ends the waiting task as Stopped: its card says it was dismissed. */
  async dismiss(project: ProjectFolder, task: number): Promise<{ task: number }> {
    if (this.chat.deps.runner.isRunning(project.id)) {
      throw new AppError('busy', 'A task is running: no task waits for an answer now.')
    }
    const pending = await this.pending(project)
    if (!pending || pending.task !== task) {
      throw new AppError('not-found', `Task ${task} no longer waits for an answer.`)
    }
    const words = `Ended without an answer: you dismissed Ralph’s question${pending.question ? ` (“${pending.question}”)` : ''}. The snapshot from before this task is kept.`
    const ended = await endWaitingTask(project.path, this.runs, words)
    if (!ended) throw new AppError('not-found', `Task ${task} no longer waits for an answer.`)
    this.markCards(project.id, [ended.runId], words)
    return { task: ended.task }
  }

  /**
   * Runs left waiting that no task waits on any more (a rollback took the project back before the question)
   * end as Stopped, their cards saying why. Returns the tasks closed.
   */
  async closeStale(project: ProjectFolder, why: string): Promise<number[]> {
    const closed = await closeStaleQuestions(project.path, this.runs, why)
    this.markCards(
      project.id,
      closed.map((c) => c.runId),
      why,
    )
    return closed.map((c) => c.task)
  }

  handlers(): Pick<Handlers<typeof chatCalls>, 'chat.dismissQuestion'> {
    return {
      'chat.dismissQuestion': async ({ projectId, task }, ctx) =>
        this.dismiss(ctx.resolveProject(projectId), task),
    }
  }

  /**
   * The cards of these runs, in any conversation of the project, end with `words`; the project's state (its
   * header reads the newest run row and `.ralph/status`) changed with them.
   */
  private markCards(projectId: number, runIds: number[], words: string): void {
    const { repo, changed } = this.chat
    if (runIds.length) this.chat.deps.events.emit('projects.changed', { projectId })
    for (const conversation of repo.list(projectId)) {
      const touched = runIds
        .map((runId) => repo.cardForRun(conversation.id, runId))
        .filter((id) => id !== null)
      touched.forEach((cardId) => repo.update(cardId, { outcome: words }))
      if (touched.length) changed(projectId, conversation.id)
    }
  }
}
