import type { ModelConfig } from '../../llm/createModel'
import { loadPriceOverrides } from '../../llm/pricing'
import { McpSession } from '../../mcp'
import { callsCost, usageEntry } from '../../llm/usage'
import { SettingsRepo } from '../../store/settingsRepo'
import { askQuestion, type AskUsage } from '../../tasks/askQuestion'
import { messageOf, type ChatContext, type ProjectFolder } from './context'

/** One Ask-mode answer to write: where it goes and what it answers. */
interface AnswerJob {
  project: ProjectFolder
  messageId: number
  conversationId: number
  question: string
  model: ModelConfig
}

/**
 * Ask mode: a question recorded with its answer card, answered by one model call that streams into the chat
 * (`chat.delta`), stoppable per project, its tokens and cost kept beside the answer.
 */
export class ChatAsk {
  /** Ask answers being written, per project, so Stop can end them. */
  private readonly answering = new Map<number, Set<AbortController>>()

  constructor(private readonly chat: ChatContext) {}

  /** Records the question and its (empty) answer, and starts writing the answer in the background. */
  send(project: ProjectFolder, conversationId: number, text: string) {
    const { repo, deps } = this.chat
    // A missing provider answers this call, before anything is recorded.
    const model = deps.modelConfig()
    const messageId = repo.add(conversationId, { kind: 'user', mode: 'ask', text })
    const answerId = repo.add(conversationId, { kind: 'answer' })
    this.chat.changed(project.id, conversationId)
    const job = { project, messageId: answerId, conversationId, question: text, model }
    this.answer(job).catch((err) =>
      deps.logger.error(`the answer to message ${messageId} could not be stored`, err),
    )
    return { conversationId, messageId, queued: false }
  }

  /** Ends the project's answers being written; whether there was any. */
  stop(projectId: number): { stopped: boolean } {
    const inFlight = [...(this.answering.get(projectId) ?? [])]
    inFlight.forEach((controller) => controller.abort())
    return { stopped: inFlight.length > 0 }
  }

  private async answer({ project, messageId, conversationId, question, model }: AnswerJob) {
    const { repo, deps } = this.chat
    const controller = new AbortController()
    const inFlight = this.answering.get(project.id) ?? new Set<AbortController>()
    this.answering.set(project.id, inFlight.add(controller))
    let streamed = ''
    let usage: AskUsage | null = null
    // The project's MCP servers, for their read-only tools: one that does not start is only left out.
    const mcp = await McpSession.open({
      projectDir: project.path,
      env: process.env,
      logger: deps.logger,
      signal: controller.signal,
      app: deps.mcpServers?.() ?? null,
    })
    try {
      const result = await askQuestion({
        mcp,
        projectDir: project.path,
        question,
        model,
        signal: controller.signal,
        logger: deps.logger,
        onUsage: (sofar) => (usage = sofar),
        onTextDelta: (delta) => {
          streamed += delta
          deps.events.emit('chat.delta', { projectId: project.id, messageId, text: delta })
        },
      })
      repo.update(messageId, { text: result.text.trim() || '(The model gave an empty answer.)', error: null })
    } catch (err) {
      repo.update(messageId, controller.signal.aborted ? stoppedAnswer(streamed) : { error: messageOf(err) })
    } finally {
      inFlight.delete(controller)
      await mcp.close()
    }
    if (usage) this.recordUsage(messageId, model, usage)
    this.chat.changed(project.id, conversationId)
  }

  /** An answer's tokens and cost go where a task's do (llm_usage), linked to the answer. */
  private recordUsage(messageId: number, model: ModelConfig, usage: AskUsage) {
    try {
      const prices = loadPriceOverrides(new SettingsRepo(this.chat.deps.db))
      const entry = usageEntry({
        purpose: 'ask',
        model,
        usage,
        durationMs: usage.durationMs,
        taskNumber: null,
        iteration: null,
        prices,
      })
      // Priced call by call (a long-context rate applies to one prompt, not to the calls added up).
      const cost = callsCost(model, usage.perCall, prices)
      this.chat.records.recordAnswerUsage(messageId, {
        ...entry,
        costUsd: cost.usd,
        calls: usage.calls,
        priced: cost.known,
      })
    } catch (err) {
      this.chat.deps.logger.error(`the usage of answer ${messageId} could not be recorded`, err)
    }
  }
}

/** Stopped by the user: what was written so far stays, marked as cut short. */
function stoppedAnswer(streamed: string): { text: string; error: null } | { error: string } {
  return streamed.trim()
    ? { text: `${streamed.trim()}\n\n*(Stopped.)*`, error: null }
    : { error: 'Stopped before Ralph answered.' }
}
