import type { ModelMessage } from 'ai'
import { isAppError } from '../../shared/errors'
import {
  type CallBudget,
  type ModelConfig,
  runModelTurn,
  toolResultMessage,
  type RetryPolicy,
  type TurnRequest,
  type TurnResult,
  type TurnUsage as ModelTurnUsage,
  ContextOverflowError,
  UsageLimitError,
} from '../llm'
import { attachmentsMessage, modelSeesImages, toolImagesMessage, type ImageAttachment } from '../attachments'
import type { McpSession } from '../mcp'
import {
  canonicalArgs,
  executeTool,
  modelTools,
  type ToolContext,
  type ToolResult as RunResult,
} from '../tools'
import {
  CHECKPOINT_MAX_OUTPUT_TOKENS,
  CHECKPOINT_REQUEST,
  CHECKPOINT_ROOM_TOKENS,
  harnessCheckpoint,
  type Checkpoint,
  type CheckpointReason,
} from './checkpoint'
import type { IterationPrompt } from './context'
import { estimateConversation, fitToolResults, type ContextBudget } from './contextBudget'
import { iterationSignature } from './stall'
import { noteFailure, type Logger } from '../workspace'

export interface ToolCallRecord {
  name: string
  args: unknown
  canonicalArgs: string
  ok: boolean
  output: string
  durationMs: number
  changedFiles: string[]
  /** An MCP tool's call: what it did is outside the snapshots (a rollback cannot undo it). */
  outsideSnapshot?: boolean
}

export interface TurnUsage extends ModelTurnUsage {
  durationMs: number
  /** The checkpoint request is bookkept apart from the iteration's work. */
  purpose: 'iteration' | 'checkpoint'
}

export interface IterationOutcome {
  signature: string
  calls: ToolCallRecord[]
  /** A tool call marked the task complete (mark_complete, or status.txt written as complete). */
  completedByTool: boolean
  /**
   * Where the iteration ended: the model answered without tools, the tool budget ran out, completion after a
   * batch, or the context budget (a checkpoint was taken).
   */
  endedBy: 'answer' | 'budget' | 'complete' | 'context'
  changedFiles: string[]
  ranCommands: boolean
  text: string
  /** Set when the iteration ended on its context budget or a provider's context-length error. */
  checkpoint: Checkpoint | null
}

export interface IterationInput {
  model: ModelConfig
  /** The model asked for the checkpoint (the fast model for side jobs); default `model`. */
  checkpointModel?: ModelConfig
  prompt: IterationPrompt
  toolCtx: ToolContext
  maxToolCalls: number
  signal: AbortSignal
  onTextDelta?: (text: string) => void
  onRetry?: (info: { attempt: number; delayMs: number; reason: string }) => void
  onToolCall?: (call: ToolCallRecord, seq: number) => void
  onTurn?: (usage: TurnUsage) => void
  budget: ContextBudget
  /**
   * Called on a usage limit (a 429 with a long reset). Resolves when the limit has reset, so the same request is
   * repeated; rejects to end the task (waiting is off, or the user stopped it).
   */
  waitForLimit?: (limit: UsageLimitError) => Promise<void>
  retry?: Partial<RetryPolicy>
  /** Where survived failures are recorded (a checkpoint the model could not write). */
  logger: Logger
  /** The task's MCP servers: their tools join Ralph's, and their calls run here like the others. */
  mcp?: McpSession
  /** The task's attached images: image parts after the prompt (a note instead for a model that cannot see). */
  images?: ImageAttachment[]
  /** Whether the model sees images (`resolveSeesImages`); default: the catalog's rule (`modelSeesImages`). */
  seesImages?: boolean
  /** A cost cap's bound on each call (TaskCaps.bound, taskCaps.ts). */
  callBudget?: CallBudget
}

/** The conversation of one iteration as it grows: what the model saw and did so far. */
interface Conversation {
  readonly input: IterationInput
  readonly system: string
  readonly messages: ModelMessage[]
  readonly calls: ToolCallRecord[]
  readonly changed: Set<string>
  completedByTool: boolean
  ranCommands: boolean
  text: string
  /** Tokens the conversation holds: the provider's count of the last step where larger than our estimate. */
  used: number
}

type ToolResult = {
  toolCallId: string
  toolName: string
  output: string
  isError?: boolean
  image?: RunResult['image']
}

/**
 * One iteration (seed 003): a fresh conversation built from the prompt alone. The model calls tools until it
 * answers without tools, a batch marks the task complete, the tool budget is spent, or the context budget is: at
 * 80 % of the model's window (or on a provider's context-length error) the iteration ends with a checkpoint.
 * Tools run here, one at a time and in order, so every call is recorded and the budgets and cancellation are exact.
 */
export async function runIteration(input: IterationInput): Promise<IterationOutcome> {
  const messages: ModelMessage[] = [{ role: 'user', content: input.prompt.user }]
  // After the prompt's text, so its stable front stays the first message's (prompt caching).
  const attached = attachmentsMessage(input.images ?? [], input.seesImages ?? modelSeesImages(input.model))
  if (attached) messages.push(attached)
  const c: Conversation = {
    input,
    system: input.prompt.system,
    messages,
    calls: [],
    changed: new Set<string>(),
    completedByTool: false,
    ranCommands: false,
    text: '',
    used: estimateConversation(input.prompt.system, messages),
  }
  const { endedBy, checkpoint } = await converse(c)
  return {
    signature: iterationSignature(c.calls),
    calls: c.calls,
    completedByTool: c.completedByTool,
    endedBy,
    changedFiles: [...c.changed],
    ranCommands: c.ranCommands,
    text: c.text,
    checkpoint,
  }
}

/** Model turns and their tool batches until one of the iteration's ends. */
async function converse(
  c: Conversation,
): Promise<{ endedBy: IterationOutcome['endedBy']; checkpoint: Checkpoint | null }> {
  const { input } = c
  const { budget } = input
  for (;;) {
    let result: TurnResult
    try {
      result = await turn(c)
    } catch (err) {
      if (!(err instanceof ContextOverflowError)) throw err
      // The provider says the conversation no longer fits: its real window is smaller than we thought.
      budget.learnOverflow(c.used)
      return { endedBy: 'context', checkpoint: await takeCheckpoint(c, 'context-error') }
    }
    input.onTurn?.({ ...result.usage, durationMs: result.durationMs, purpose: 'iteration' })
    c.text += result.text
    if (result.toolCalls.length === 0) return { endedBy: 'answer', checkpoint: null }

    c.messages.push(...result.responseMessages)
    // The provider's count of this step (prompt + answer) is exact; our estimate covers servers that report none.
    c.used = Math.max(
      result.usage.inputTokens + result.usage.outputTokens,
      estimateConversation(c.system, c.messages),
    )
    const { results, budgetHit } = await runToolBatch(c, result.toolCalls)
    const end = batchEnd(budgetHit, c.completedByTool)
    if (end) return { endedBy: end, checkpoint: null }
    answerToolCalls(c, results)
    if (budget.full(c.used)) return { endedBy: 'context', checkpoint: await takeCheckpoint(c, 'budget') }
  }
}

/** After a batch of tool calls: whether the iteration ends there (the tool budget first, then completion). */
export function batchEnd(budgetHit: boolean, completedByTool: boolean): 'budget' | 'complete' | null {
  if (budgetHit) return 'budget'
  if (completedByTool) return 'complete'
  return null
}

function turn(c: Conversation, extra: Partial<TurnRequest> = {}): Promise<TurnResult> {
  const { input } = c
  return turnWaitingForLimits(input, {
    model: input.model,
    system: c.system,
    messages: c.messages,
    tools: input.mcp ? { ...modelTools, ...input.mcp.modelTools() } : modelTools,
    signal: input.signal,
    onTextDelta: input.onTextDelta,
    onRetry: input.onRetry,
    retry: input.retry,
    // Where the prompt's stable parts end: the provider bills them as cache reads from the second request on.
    cache: input.prompt.cache,
    logger: input.logger,
    ...(input.callBudget ? { callBudget: input.callBudget } : {}),
    ...extra,
  })
}

/** Runs one answer's tool calls in order, until the tool budget is spent; each is recorded as it ends. */
async function runToolBatch(
  c: Conversation,
  toolCalls: TurnResult['toolCalls'],
): Promise<{ results: ToolResult[]; budgetHit: boolean }> {
  const { input } = c
  const results: ToolResult[] = []
  for (const call of toolCalls) {
    if (c.calls.length >= input.maxToolCalls) return { results, budgetHit: true }
    const started = performance.now()
    // A call the SDK could not match to a tool or schema still needs an answer: the model sees why.
    const outcome = call.invalidReason
      ? {
          ok: false,
          output: `Invalid tool call: ${call.invalidReason}`,
          changedFiles: [],
          completed: false,
        }
      : await runTool(input, call.toolName, call.input)
    const mcp = input.mcp?.has(call.toolName) === true
    const record: ToolCallRecord = {
      name: call.toolName,
      args: call.input,
      canonicalArgs: canonicalArgs(call.toolName, call.input),
      ok: outcome.ok,
      output: outcome.output,
      durationMs: performance.now() - started,
      changedFiles: outcome.changedFiles,
      ...(mcp ? { outsideSnapshot: true } : {}),
    }
    c.calls.push(record)
    input.onToolCall?.(record, c.calls.length)
    for (const f of outcome.changedFiles) c.changed.add(f)
    if (call.toolName === 'run_command') c.ranCommands = true
    if (outcome.completed) c.completedByTool = true
    results.push({
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      output: outcome.output,
      isError: !outcome.ok,
      ...(outcome.image ? { image: outcome.image } : {}),
    })
    input.signal.throwIfAborted()
  }
  return { results, budgetHit: false }
}

/** One tool call: an MCP server's tool (with run_command's timeout) or one of Ralph's own. */
async function runTool(input: IterationInput, name: string, args: unknown): Promise<RunResult> {
  if (!input.mcp?.has(name)) return executeTool(name, args, input.toolCtx)
  const r = await input.mcp.call(name, args, {
    signal: input.signal,
    timeoutMs: input.toolCtx.commandTimeoutMs,
  })
  return { ...r, changedFiles: [], completed: false }
}

/** The batch's results as the next message; large results are cut before they are sent, to what is left. */
function answerToolCalls(c: Conversation, results: ToolResult[]): void {
  const { budget } = c.input
  const fitted = fitToolResults(
    results.map((r) => r.output),
    budget.threshold - c.used,
    budget.window,
  )
  fitted.forEach((f, i) => (results[i] = { ...results[i]!, output: f.output }))
  const resultMessage = toolResultMessage(results)
  c.messages.push(resultMessage)
  const images = toolImagesMessage(
    results.flatMap((r) => (r.image ? [r.image] : [])),
    c.input.seesImages ?? modelSeesImages(c.input.model),
  )
  if (images) c.messages.push(images)
  c.used = Math.max(
    c.used + estimateConversation('', images ? [resultMessage, images] : [resultMessage]),
    estimateConversation(c.system, c.messages),
  )
}

/** Ends the iteration with a checkpoint: asked of the model when there is room, else written by the harness. */
async function takeCheckpoint(c: Conversation, reason: CheckpointReason): Promise<Checkpoint> {
  const { input } = c
  const { budget } = input
  const window = budget.window
  if (reason === 'budget' && budget.roomForCheckpoint(c.used, CHECKPOINT_ROOM_TOKENS)) {
    try {
      const answer = await turn(c, {
        model: input.checkpointModel ?? input.model,
        messages: [...c.messages, { role: 'user', content: CHECKPOINT_REQUEST }],
        toolChoice: 'none',
        maxOutputTokens: CHECKPOINT_MAX_OUTPUT_TOKENS,
        onTextDelta: undefined,
      })
      input.onTurn?.({ ...answer.usage, durationMs: answer.durationMs, purpose: 'checkpoint' })
      if (answer.text.trim())
        return { reason, by: 'model', text: answer.text.trim(), usedTokens: c.used, windowTokens: window }
    } catch (err) {
      if (input.signal.aborted || isAppError(err, 'cancelled')) throw err
      // Any other failure: the harness still has what it needs to write the checkpoint itself.
      noteFailure(input.logger, 'the model could not write the checkpoint: the harness writes it', err)
    }
  }
  return {
    reason,
    by: 'harness',
    text: harnessCheckpoint(c.calls, reason),
    usedTokens: c.used,
    windowTokens: window,
  }
}

/** A model turn that, on a usage limit, waits for the reset (when allowed) and repeats the same request. */
async function turnWaitingForLimits(input: IterationInput, req: TurnRequest): Promise<TurnResult> {
  for (;;) {
    try {
      return await runModelTurn(req)
    } catch (err) {
      if (!(err instanceof UsageLimitError) || !input.waitForLimit) throw err
      await input.waitForLimit(err)
    }
  }
}
