import type { ModelMessage } from 'ai'
import { isAppError } from '../../shared/errors'
import type { ModelConfig } from '../llm/createModel'
import {
  runModelTurn,
  toolResultMessage,
  type RetryPolicy,
  type TurnRequest,
  type TurnResult,
  type TurnUsage as ModelTurnUsage,
} from '../llm/modelTurn'
import { ContextOverflowError } from '../llm/providerErrors'
import { UsageLimitError } from '../llm/usageLimit'
import { canonicalArgs, executeTool, modelTools, type ToolContext } from '../tools'
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

export interface ToolCallRecord {
  name: string
  args: unknown
  canonicalArgs: string
  ok: boolean
  output: string
  durationMs: number
  changedFiles: string[]
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
}

/**
 * One iteration (seed 003): a fresh conversation built from the prompt alone. The model calls tools until it
 * answers without tools, a batch marks the task complete, the tool budget is spent, or the context budget is: at
 * 80 % of the model's window (or on a provider's context-length error) the iteration ends with a checkpoint.
 * Tools run here, one at a time and in order, so every call is recorded and the budgets and cancellation are exact.
 */
export async function runIteration(input: IterationInput): Promise<IterationOutcome> {
  const { budget } = input
  const system = input.prompt.system
  const messages: ModelMessage[] = [{ role: 'user', content: input.prompt.user }]
  const calls: ToolCallRecord[] = []
  const changed = new Set<string>()
  let completedByTool = false
  let ranCommands = false
  let text = ''
  let endedBy: IterationOutcome['endedBy'] = 'answer'
  let checkpoint: Checkpoint | null = null
  // Tokens the conversation holds: the provider's count of the last step where larger than our estimate.
  let used = estimateConversation(system, messages)

  const turn = (extra: Partial<TurnRequest> = {}) =>
    turnWaitingForLimits(input, {
      model: input.model,
      system,
      messages,
      tools: modelTools,
      signal: input.signal,
      onTextDelta: input.onTextDelta,
      onRetry: input.onRetry,
      retry: input.retry,
      // Where the prompt's stable parts end: the provider bills them as cache reads from the second request on.
      cache: input.prompt.cache,
      ...extra,
    })

  /** Ends the iteration with a checkpoint: asked of the model when there is room, else written by the harness. */
  const takeCheckpoint = async (reason: CheckpointReason): Promise<Checkpoint> => {
    const window = budget.window
    if (reason === 'budget' && budget.roomForCheckpoint(used, CHECKPOINT_ROOM_TOKENS)) {
      try {
        const answer = await turn({
          model: input.checkpointModel ?? input.model,
          messages: [...messages, { role: 'user', content: CHECKPOINT_REQUEST }],
          toolChoice: 'none',
          maxOutputTokens: CHECKPOINT_MAX_OUTPUT_TOKENS,
          onTextDelta: undefined,
        })
        input.onTurn?.({ ...answer.usage, durationMs: answer.durationMs, purpose: 'checkpoint' })
        if (answer.text.trim())
          return { reason, by: 'model', text: answer.text.trim(), usedTokens: used, windowTokens: window }
      } catch (err) {
        if (input.signal.aborted || isAppError(err, 'cancelled')) throw err
        // Any other failure: the harness still has what it needs to write the checkpoint itself.
      }
    }
    return {
      reason,
      by: 'harness',
      text: harnessCheckpoint(calls, reason),
      usedTokens: used,
      windowTokens: window,
    }
  }

  for (;;) {
    let result: TurnResult
    try {
      result = await turn()
    } catch (err) {
      if (!(err instanceof ContextOverflowError)) throw err
      // The provider says the conversation no longer fits: its real window is smaller than we thought.
      budget.learnOverflow(used)
      checkpoint = await takeCheckpoint('context-error')
      endedBy = 'context'
      break
    }
    input.onTurn?.({ ...result.usage, durationMs: result.durationMs, purpose: 'iteration' })
    text += result.text
    if (result.toolCalls.length === 0) break

    messages.push(...result.responseMessages)
    // The provider's count of this step (prompt + answer) is exact; our estimate covers servers that report none.
    used = Math.max(
      result.usage.inputTokens + result.usage.outputTokens,
      estimateConversation(system, messages),
    )
    const results: { toolCallId: string; toolName: string; output: string; isError?: boolean }[] = []
    let budgetHit = false
    for (const call of result.toolCalls) {
      if (calls.length >= input.maxToolCalls) {
        budgetHit = true
        break
      }
      const started = performance.now()
      // A call the SDK could not match to a tool or schema still needs an answer: the model sees why.
      const outcome = call.invalidReason
        ? {
            ok: false,
            output: `Invalid tool call: ${call.invalidReason}`,
            changedFiles: [],
            completed: false,
          }
        : await executeTool(call.toolName, call.input, input.toolCtx)
      const record: ToolCallRecord = {
        name: call.toolName,
        args: call.input,
        canonicalArgs: canonicalArgs(call.toolName, call.input),
        ok: outcome.ok,
        output: outcome.output,
        durationMs: performance.now() - started,
        changedFiles: outcome.changedFiles,
      }
      calls.push(record)
      input.onToolCall?.(record, calls.length)
      for (const f of outcome.changedFiles) changed.add(f)
      if (call.toolName === 'run_command') ranCommands = true
      if (outcome.completed) completedByTool = true
      results.push({
        toolCallId: call.toolCallId,
        toolName: call.toolName,
        output: outcome.output,
        isError: !outcome.ok,
      })
      input.signal.throwIfAborted()
    }
    if (budgetHit) {
      endedBy = 'budget'
      break
    }
    if (completedByTool) {
      endedBy = 'complete'
      break
    }
    // Large results are cut before they are sent, to what is left of the budget.
    const fitted = fitToolResults(
      results.map((r) => r.output),
      budget.threshold - used,
      budget.window,
    )
    fitted.forEach((f, i) => (results[i] = { ...results[i]!, output: f.output }))
    const resultMessage = toolResultMessage(results)
    messages.push(resultMessage)
    used = Math.max(used + estimateConversation('', [resultMessage]), estimateConversation(system, messages))
    if (budget.full(used)) {
      checkpoint = await takeCheckpoint('budget')
      endedBy = 'context'
      break
    }
  }

  return {
    signature: iterationSignature(calls),
    calls,
    completedByTool,
    endedBy,
    changedFiles: [...changed],
    ranCommands,
    text,
    checkpoint,
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
