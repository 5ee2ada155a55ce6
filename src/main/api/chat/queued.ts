import type { chatCalls } from '../../../shared/api/chat'
import type { TaskCaps } from '../../../shared/budget'
import { AppError } from '../../../shared/errors'
import { RalphState } from '../../loop/ralphState'
import type { ImageAttachment } from '../../attachments'
import type { Handlers } from '../types'
import type { ChatCards } from './cards'
import { messageOf, type ChatContext, type ProjectFolder } from './context'

const NOT_QUEUED = 'That task is not queued any more: it has started or was removed.'

/**
 * The chat's queue: Task messages sent while a task runs wait as queued cards, and the oldest starts when a
 * task ends (or with Start now).
 */
export class ChatQueue {
  /** The cost caps of queued cards, by card id, until they start (kept in memory: a restart drops the cap). */
  private readonly caps = new Map<number, TaskCaps>()
  /**
   * The images of queued cards, by card id, until they start. Kept in memory with the cap, not in the project:
   * a folder there would be taken into the running task's snapshots and removed by its rollback. A page reload
   * keeps them; a restart of the host drops them (the card then starts without them).
   */
  private readonly images = new Map<number, ImageAttachment[]>()

  constructor(
    private readonly chat: ChatContext,
    private readonly cards: ChatCards,
  ) {}

  /** A queued card keeps its cost cap until it starts. */
  hold(cardId: number, caps: TaskCaps, images: ImageAttachment[] = []): void {
    if (caps.maxCostUsd !== undefined || caps.maxTokens !== undefined) this.caps.set(cardId, caps)
    if (images.length > 0) this.images.set(cardId, images)
  }

  /** The oldest queued task of a project starts, if there is one and nothing runs there. */
  async startNext(projectId: number): Promise<void> {
    const next = this.chat.repo.queued(projectId)[0]
    if (!next || this.chat.deps.runner.isRunning(projectId)) return
    const project = this.chat.deps.projectPath(projectId)
    if (project) await this.start({ id: projectId, path: project }, next)
  }

  /** A queued card leaves the queue and starts; if it cannot, it says why and the queue waits for the user. */
  private async start(project: ProjectFolder, card: { id: number; conversationId: number; request: string }) {
    const { repo } = this.chat
    repo.update(card.id, { queued: 0, text: '' })
    const caps = this.caps.get(card.id) ?? {}
    this.caps.delete(card.id)
    const images = this.images.get(card.id) ?? []
    this.images.delete(card.id)
    try {
      await this.cards.start(project, card.conversationId, card.id, card.request, caps, images)
    } catch (err) {
      repo.update(card.id, { error: `Could not start: ${messageOf(err)}` })
    }
    this.chat.changed(project.id, card.conversationId)
  }

  handlers(): Pick<Handlers<typeof chatCalls>, 'chat.removeQueued' | 'chat.startQueued'> {
    const { repo, deps } = this.chat
    return {
      'chat.removeQueued': async ({ projectId, messageId }, ctx) => {
        ctx.resolveProject(projectId)
        const conversationId = repo.conversationOf(messageId)
        if (conversationId === null || !repo.removeQueued(projectId, messageId)) {
          throw new AppError('not-found', NOT_QUEUED)
        }
        this.caps.delete(messageId)
        this.images.delete(messageId)
        this.chat.changed(projectId, conversationId)
        return { removed: true as const }
      },
      'chat.startQueued': async ({ projectId, messageId }, ctx) => {
        const project = ctx.resolveProject(projectId)
        const card = repo.queued(projectId).find((q) => q.id === messageId)
        if (!card) throw new AppError('not-found', NOT_QUEUED)
        if (deps.runner.isRunning(projectId)) {
          throw new AppError('busy', 'A task is running: this one starts by itself when that one ends.')
        }
        // Started now, the request would become the answer to the waiting task's question.
        if ((await new RalphState(project.path).status()) === 'waiting') {
          throw new AppError(
            'busy',
            'The last task waits for your answer: answer it first (or roll it back), then start this one.',
          )
        }
        await this.start(project, card)
        return { started: true as const }
      },
    }
  }
}
