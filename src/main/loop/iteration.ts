import type { ModelMessage } from 'ai'
import type { ModelConfig } from '../llm/createModel'
import { runModelTurn, toolResultMessage } from '../llm/modelTurn'
import {
  canonicalArgs,
  executeTool,
  toolDescriptions,
  toolNames,
  toolSchemas,
  type ToolContext,
} from '../tools'
import type { IterationPrompt } from './context'
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

export interface TurnUsage {
  inputTokens: number
  outputTokens: number
  durationMs: number
}

export interface IterationOutcome {
  signature: string
  calls: ToolCallRecord[]
  /** A tool call marked the task complete (mark_complete, or status.txt written as complete). */
  completedByTool: boolean
  /** Where the iteration ended: the model answered without tools, the budget ran out, or completion after a batch. */
  endedBy: 'answer' | 'budget' | 'complete'
  changedFiles: string[]
  ranCommands: boolean
  text: string
}

export interface IterationInput {
  model: ModelConfig
  prompt: IterationPrompt
  toolCtx: ToolContext
  maxToolCalls: number
  signal: AbortSignal
  onTextDelta?: (text: string) => void
  onRetry?: (info: { attempt: number; delayMs: number; reason: string }) => void
  onToolCall?: (call: ToolCallRecord, seq: number) => void
  onTurn?: (usage: TurnUsage) => void
}

const toolSpecs = Object.fromEntries(
  toolNames.map((name) => [name, { description: toolDescriptions[name], inputSchema: toolSchemas[name] }]),
)

/**
 * One iteration (seed 003): a fresh conversation built from the prompt alone. The model calls tools until it
 * answers without tools, a batch marks the task complete, or the tool budget is spent. Tools run here, one at a
 * time and in order, so every call is recorded and the budget and cancellation are exact.
 */
export async function runIteration(input: IterationInput): Promise<IterationOutcome> {
  const messages: ModelMessage[] = [{ role: 'user', content: input.prompt.user }]
  const calls: ToolCallRecord[] = []
  const changed = new Set<string>()
  let completedByTool = false
  let ranCommands = false
  let text = ''
  let endedBy: IterationOutcome['endedBy'] = 'answer'

  for (;;) {
    const turn = await runModelTurn({
      model: input.model,
      system: input.prompt.system,
      messages,
      tools: toolSpecs,
      signal: input.signal,
      onTextDelta: input.onTextDelta,
      onRetry: input.onRetry,
    })
    input.onTurn?.({ ...turn.usage, durationMs: turn.durationMs })
    text += turn.text
    if (turn.toolCalls.length === 0) break

    messages.push(...turn.responseMessages)
    const results: { toolCallId: string; toolName: string; output: string; isError?: boolean }[] = []
    let budgetHit = false
    for (const call of turn.toolCalls) {
      if (calls.length >= input.maxToolCalls) {
        budgetHit = true
        break
      }
      const started = performance.now()
      // A call the SDK could not match to a tool or schema still needs an answer: the model sees why.
      const result = call.invalidReason
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
        ok: result.ok,
        output: result.output,
        durationMs: performance.now() - started,
        changedFiles: result.changedFiles,
      }
      calls.push(record)
      input.onToolCall?.(record, calls.length)
      for (const f of result.changedFiles) changed.add(f)
      if (call.toolName === 'run_command') ranCommands = true
      if (result.completed) completedByTool = true
      results.push({
        toolCallId: call.toolCallId,
        toolName: call.toolName,
        output: result.output,
        isError: !result.ok,
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
    messages.push(toolResultMessage(results))
  }

  return {
    signature: iterationSignature(calls),
    calls,
    completedByTool,
    endedBy,
    changedFiles: [...changed],
    ranCommands,
    text,
  }
}
