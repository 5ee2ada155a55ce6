import type { chatCalls } from '../../shared/api/chat'
import { AppError } from '../../shared/errors'
import type { StructuredTask } from '../../shared/task'
import type { ModelConfig } from '../llm/createModel'
import { RalphState } from '../loop/ralphState'
import type { TaskRunner } from '../loop/taskRunner'
import { estimateCost, loadPriceOverrides } from '../llm/pricing'
import { ChatRecordsRepo } from '../store/chatRecordsRepo'
import { ConversationsRepo } from '../store/conversationsRepo'
import { SettingsRepo } from '../store/settingsRepo'
import { askQuestion, type AskUsage } from '../tasks/askQuestion'
import { RunJournal } from '../tasks/runJournal'
import { runInProject, taskDetail } from '../tasks/taskDetail'
import type { Db } from '../store/database'
import type { LoopEvent } from '../../shared/loopEvents'
import type { Logger } from '../workspace/logFile'
import type { EventBus } from './eventBus'
import type { Handlers } from './types'

export interface ChatDeps {
  db: Db
  runner: TaskRunner
  events: EventBus
  modelConfig(): ModelConfig
  /** The folder of a registered project, or null if it was removed. */
  projectPath(projectId: number): string | null
  /** A queue build holds the project's task lock: a task message is refused with a sentence saying so. */
  building(projectId: number): boolean
  logger: Logger
}

/** The card a chat message started, until its task finishes: linked to the task and run as the loop reports them. */
interface PendingCard {
  messageId: number
  conversationId: number
  projectPath: string
  task: number | null
  runId: number | null
}

/**
 * The project chat: conversations, paged history, and `chat.send`, which records the message and starts the task
 * through the same TaskRunner as `tasks.start` (Task mode) or answers it with one model call (Ask mode).
 */
export function createChatHandlers(deps: ChatDeps): Handlers<typeof chatCalls> {
  const repo = new ConversationsRepo(deps.db)
  const records = new ChatRecordsRepo(deps.db)
  const journal = new RunJournal({
    runOf: (projectId, task) => {
      const path = deps.projectPath(projectId)
      return path === null ? null : repo.latestRunId(path, task)
    },
    write: (runId, entry) => {
      try {
        records.addJournal(runId, entry)
      } catch (err) {
        // The card loses a line of its history; the task itself goes on.
        deps.logger.error(`the journal of run ${runId} could not be written`, err)
      }
    },
  })
  const pending = new Map<number, PendingCard>()
  /** The cost caps of queued cards, by card id, until they start (kept in memory: a restart drops the cap). */
  const queuedCaps = new Map<number, number>()
  /** Ask answers being written, per project, so Stop can end them. */
  const answering = new Map<number, Set<AbortController>>()
  const changed = (projectId: number, conversationId: number) =>
    deps.events.emit('chat.changed', { projectId, conversationId })

  // An answer left empty by a host that died while writing it would otherwise say "writing…" for ever.
  repo.cutShortAnswers('Cut short: Ralph was closed while answering.')
  repo.cutShortStarts('Cut short: Ralph was closed while starting this task.')

  deps.events.subscribe(({ name, payload }) => {
    if (name === 'loop.delta') {
      const { projectId, task, iteration, text } = payload as {
        projectId: number
        task: number
        iteration: number
        text: string
      }
      journal.onDelta(projectId, task, iteration, text)
      return
    }
    if (name === 'loop.event')
      journal.onEvent((payload as { projectId: number }).projectId, (payload as { event: LoopEvent }).event)
    if (name === 'loop.finished') journal.onFinished((payload as { projectId: number }).projectId)
    if (name === 'loop.event') {
      const { projectId, event } = payload as { projectId: number; event: { type: string; task: number } }
      const card = pending.get(projectId)
      if (!card) return
      if (event.type === 'task.started')
        linkTask(projectId, card, event as { task: number; continued?: boolean })
      else if (card.runId === null && card.task === event.task) linkRun(projectId, card)
      // The card's words arrive with the status, not a moment later with loop.finished: this listener runs
      // before the clients hear of the event.
      const words =
        event.type === 'task.completed'
          ? (event as unknown as { summary: string }).summary
          : event.type === 'clarification.needed'
            ? (event as unknown as { question: string }).question
            : null
      if (words !== null && card.task === event.task) repo.update(card.messageId, { outcome: words })
      if (event.type === 'task.parsed' && card.task === event.task) {
        const { parsed } = event as unknown as { parsed: StructuredTask }
        const requirements = { requirements: parsed.requirements, preserve: parsed.scope.preserve }
        repo.update(card.messageId, { requirements: JSON.stringify(requirements) })
      }
    } else if (name === 'snapshot.rolledBack') {
      // The chat says when the files went back in time, wherever the rollback came from.
      const { projectId, report, undo } = payload as {
        projectId: number
        report: { target: string; safetyTag: string | null }
        undo: boolean
      }
      const conversation = repo.current(projectId)
      const text = undo
        ? `Undid the rollback: the files are back as they were (${report.target}).`
        : `Rolled back to ${report.target}.` +
          (report.safetyTag ? ` The state before it is saved as ${report.safetyTag}.` : '')
      repo.add(conversation.id, { kind: 'notice', text })
      changed(projectId, conversation.id)
    } else if (name === 'loop.finished') {
      const { projectId, message, status } = payload as { projectId: number; message: string; status: string }
      const card = pending.get(projectId)
      if (card) {
        pending.delete(projectId)
        if (card.runId === null && card.task !== null) linkRun(projectId, card)
        repo.update(card.messageId, card.task === null ? { error: message } : { outcome: message })
        changed(projectId, card.conversationId)
      }
      // The queue moves on when a task ends; one waiting for an answer has not ended, so the queue waits too.
      if (status !== 'needs-clarification') {
        startNextQueued(projectId).catch((err) =>
          deps.logger.error(`the next queued task of project ${projectId} could not start`, err),
        )
      }
    }
  })

  function linkTask(projectId: number, card: PendingCard, event: { task: number; continued?: boolean }) {
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
    linkRun(projectId, card)
  }

  function linkRun(projectId: number, card: PendingCard) {
    if (card.task === null) return
    card.runId = repo.latestRunId(card.projectPath, card.task)
    if (card.runId !== null) repo.update(card.messageId, { runId: card.runId })
    changed(projectId, card.conversationId)
  }

  /** Starts a card's task through the runner; the card follows the loop's events from here. */
  async function startCard(
    project: { id: number; path: string },
    conversationId: number,
    cardId: number,
    request: string,
    maxCostUsd?: number,
  ) {
    const previous = pending.get(project.id)
    pending.set(project.id, {
      messageId: cardId,
      conversationId,
      projectPath: project.path,
      task: null,
      runId: null,
    })
    try {
      await deps.runner.start(project, request, undefined, { maxCostUsd })
    } catch (err) {
      if (previous) pending.set(project.id, previous)
      else pending.delete(project.id)
      throw err
    }
  }

  /** A queued card leaves the queue and starts; if it cannot, it says why and the queue waits for the user. */
  async function startQueuedCard(
    project: { id: number; path: string },
    card: { id: number; conversationId: number; request: string },
  ) {
    repo.update(card.id, { queued: 0, text: '' })
    const maxCostUsd = queuedCaps.get(card.id)
    queuedCaps.delete(card.id)
    try {
      await startCard(project, card.conversationId, card.id, card.request, maxCostUsd)
    } catch (err) {
      repo.update(card.id, { error: `Could not start: ${(err as Error).message || String(err)}` })
    }
    changed(project.id, card.conversationId)
  }

  /** The oldest queued task of a project starts, if there is one and nothing runs there. */
  async function startNextQueued(projectId: number) {
    const next = repo.queued(projectId)[0]
    if (!next || deps.runner.isRunning(projectId)) return
    const project = deps.projectPath(projectId)
    if (project) await startQueuedCard({ id: projectId, path: project }, next)
  }

  async function answer(
    projectId: number,
    projectPath: string,
    messageId: number,
    conversationId: number,
    question: string,
    model: ModelConfig,
  ) {
    const controller = new AbortController()
    const inFlight = answering.get(projectId) ?? new Set<AbortController>()
    answering.set(projectId, inFlight.add(controller))
    let streamed = ''
    let usage: AskUsage | null = null
    try {
      const result = await askQuestion({
        projectDir: projectPath,
        question,
        model,
        signal: controller.signal,
        onUsage: (sofar) => (usage = sofar),
        onTextDelta: (delta) => {
          streamed += delta
          deps.events.emit('chat.delta', { projectId, messageId, text: delta })
        },
      })
      repo.update(messageId, { text: result.text.trim() || '(The model gave an empty answer.)', error: null })
    } catch (err) {
      if (controller.signal.aborted) {
        // Stopped by the user: what was written so far stays, marked as cut short.
        repo.update(
          messageId,
          streamed.trim()
            ? { text: `${streamed.trim()}\n\n*(Stopped.)*`, error: null }
            : { error: 'Stopped before Ralph answered.' },
        )
      } else repo.update(messageId, { error: (err as Error).message || String(err) })
    } finally {
      inFlight.delete(controller)
    }
    if (usage) recordAnswerUsage(messageId, model, usage)
    changed(projectId, conversationId)
  }

  /** An answer's tokens and cost go where a task's do (llm_usage), linked to the answer. */
  function recordAnswerUsage(messageId: number, model: ModelConfig, usage: AskUsage) {
    try {
      const cost = estimateCost(model.model, usage, loadPriceOverrides(new SettingsRepo(deps.db)))
      records.recordAnswerUsage(messageId, {
        provider: model.provider,
        model: model.model,
        inputTokens: usage.inputTokens,
        outputTokens: usage.outputTokens,
        cacheReadTokens: usage.cacheReadTokens,
        cacheWriteTokens: usage.cacheWriteTokens,
        reasoningTokens: usage.reasoningTokens,
        durationMs: usage.durationMs,
        costUsd: cost.usd,
        calls: usage.calls,
        priced: cost.known,
      })
    } catch (err) {
      deps.logger.error(`the usage of answer ${messageId} could not be recorded`, err)
    }
  }

  return {
    'chat.conversations': async ({ projectId }, ctx) => {
      ctx.resolveProject(projectId)
      const current = repo.current(projectId)
      return { current, items: repo.list(projectId) }
    },
    'chat.newConversation': async ({ projectId }, ctx) => {
      ctx.resolveProject(projectId)
      const conversation = repo.startNew(projectId)
      changed(projectId, conversation.id)
      return conversation
    },
    'chat.history': async ({ projectId, conversationId, before, limit }, ctx) => {
      const project = ctx.resolveProject(projectId)
      // A task left running by a process that died shows as Interrupted from the first page read after it.
      if (before === undefined) await deps.runner.isRunningAnywhere(project)
      const conversation = conversationId === undefined ? repo.current(projectId) : repo.get(conversationId)
      if (!conversation || conversation.projectId !== projectId) {
        throw new AppError('not-found', `No conversation ${conversationId} in this project.`)
      }
      const page = repo.history(conversation.id, { before, limit })
      const answers = page.messages.filter((m) => m.kind === 'answer').map((m) => m.id)
      const usage = records.answerUsage(answers)
      return {
        conversationId: conversation.id,
        ...page,
        messages: page.messages.map((m) =>
          m.kind === 'answer' ? { ...m, usage: usage.get(m.id) ?? null } : m,
        ),
      }
    },
    'chat.taskDetail': async ({ projectId, runId }, ctx) => {
      const project = ctx.resolveProject(projectId)
      if (!runInProject(deps.db, runId, project.path)) {
        throw new AppError('not-found', `No run ${runId} in this project.`)
      }
      return { runId, ...taskDetail(deps.db, runId, records.journal(runId)) }
    },
    'chat.send': async ({ projectId, mode, text, maxCostUsd }, ctx) => {
      const project = ctx.resolveProject(projectId)
      const conversation = repo.current(projectId)
      if (mode === 'ask') {
        // A missing provider answers this call, before anything is recorded.
        const model = deps.modelConfig()
        const messageId = repo.add(conversation.id, { kind: 'user', mode, text })
        const answerId = repo.add(conversation.id, { kind: 'answer' })
        changed(projectId, conversation.id)
        answer(projectId, project.path, answerId, conversation.id, text, model).catch((err) =>
          deps.logger.error(`the answer to message ${messageId} could not be stored`, err),
        )
        return { conversationId: conversation.id, messageId, queued: false }
      }
      if (deps.building(projectId))
        throw new AppError(
          'busy',
          'A build is running in this project (see the Queue tab): a Task message cannot start until it ends or you stop it. Ask mode still answers.',
        )
      // While a task runs here, the message waits its turn as a queued card. Otherwise it starts at once, even
      // with older queued cards left (they wait for the end of a task, or for Start now): it may be an answer.
      const queue = deps.runner.isRunning(projectId)
      const messageId = repo.add(conversation.id, { kind: 'user', mode, text })
      const cardId = repo.add(conversation.id, { kind: 'task', queued: queue, text: queue ? text : '' })
      if (queue) {
        if (maxCostUsd !== undefined) queuedCaps.set(cardId, maxCostUsd)
        changed(projectId, conversation.id)
        return { conversationId: conversation.id, messageId, queued: true }
      }
      try {
        await startCard(project, conversation.id, cardId, text, maxCostUsd)
      } catch (err) {
        // Refused (busy elsewhere, no provider): the call says why and the chat keeps no half-started card.
        repo.remove([messageId, cardId])
        throw err
      }
      changed(projectId, conversation.id)
      return { conversationId: conversation.id, messageId, queued: false }
    },
    'chat.stopAnswer': async ({ projectId }, ctx) => {
      ctx.resolveProject(projectId)
      const inFlight = [...(answering.get(projectId) ?? [])]
      inFlight.forEach((controller) => controller.abort())
      return { stopped: inFlight.length > 0 }
    },
    'chat.removeQueued': async ({ projectId, messageId }, ctx) => {
      ctx.resolveProject(projectId)
      const conversationId = repo.conversationOf(messageId)
      if (conversationId === null || !repo.removeQueued(projectId, messageId)) {
        throw new AppError('not-found', 'That task is not queued any more: it has started or was removed.')
      }
      queuedCaps.delete(messageId)
      changed(projectId, conversationId)
      return { removed: true as const }
    },
    'chat.resume': async ({ projectId, runId }, ctx) => {
      const project = ctx.resolveProject(projectId)
      if (deps.runner.isRunning(projectId)) {
        throw new AppError('busy', 'A task is running: wait for it to finish (or stop it), then resume.')
      }
      const interrupted = await deps.runner.interruptedTask(project)
      if (interrupted.runId !== runId) {
        throw new AppError(
          'not-found',
          `That run is not the interrupted task: only the project's last task (task ${interrupted.task}) can be resumed.`,
        )
      }
      const card = repo
        .list(projectId)
        .map((c) => ({ conversationId: c.id, messageId: repo.cardForRun(c.id, runId) }))
        .find((c) => c.messageId !== null)
      if (!card) {
        throw new AppError(
          'not-found',
          `Task ${interrupted.task} has no card in this project's chat (it ran from the command line): resume it with ralph run --resume.`,
        )
      }
      // The same card follows the resumed run, back to Running and on to its outcome.
      const previous = pending.get(project.id)
      pending.set(project.id, {
        messageId: card.messageId!,
        conversationId: card.conversationId,
        projectPath: project.path,
        task: interrupted.task,
        runId,
      })
      try {
        await deps.runner.resume(project)
      } catch (err) {
        if (previous) pending.set(project.id, previous)
        else pending.delete(project.id)
        throw err
      }
      changed(projectId, card.conversationId)
      return { task: interrupted.task }
    },
    'chat.startQueued': async ({ projectId, messageId }, ctx) => {
      const project = ctx.resolveProject(projectId)
      const card = repo.queued(projectId).find((q) => q.id === messageId)
      if (!card) {
        throw new AppError('not-found', 'That task is not queued any more: it has started or was removed.')
      }
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
      await startQueuedCard(project, card)
      return { started: true as const }
    },
  }
}
