import type { ModelConfig } from './createModel'
import { callCost, type CostSource } from './openrouter'
import type { BilledUsage, PriceOverrides } from './pricing'
import type { Logger } from '../workspace'

/** What a call was for; `ask`: a chat answer (kept beside its answer, not a task's). */
export type UsagePurpose = 'parse' | 'iteration' | 'checkpoint' | 'verify' | 'ask'

/** One LLM call's cost record: what the store keeps per task and iteration. */
export interface UsageEntry<P extends UsagePurpose = Exclude<UsagePurpose, 'ask'>> {
  /**
   * `verify`: one verdict call of a task's verification (the repair retry is a call of its own). `checkpoint`: the
   * summary call that compacts a task's conversation.
   */
  purpose: P
  provider: string
  model: string
  /** All prompt tokens, cache reads and writes included (the meaning is TurnUsage's, llm/modelTurn.ts). */
  inputTokens: number
  outputTokens: number
  /** Of `inputTokens`: read from the provider's prompt cache. */
  cacheReadTokens: number
  /** Of `inputTokens`: written to the prompt cache (5-minute and 1-hour writes). */
  cacheWriteTokens: number
  /** Of `cacheWriteTokens`: written for one hour (Anthropic's `ephemeral_1h_input_tokens`), billed at its rate. */
  cacheWrite1hTokens?: number
  /** Of `outputTokens`: reasoning. */
  reasoningTokens: number
  durationMs: number
  /** Each kind of token at its own rate (pricing.ts); 0 for models without a price (see `costKnown`). */
  costUsd: number
  /** False when the model has no price (local or unknown), so 0 USD means "not estimated", not "free". */
  costKnown?: boolean
  /** 'provider': the cost the provider reported (OpenRouter); 'catalog': tokens times the catalog's rates. */
  costSource?: CostSource
  /** The lifecycle task the call belongs to; null for a call outside one. */
  taskNumber: number | null
  iteration: number | null
}

export interface UsageSink {
  record(entry: UsageEntry): void
}

/**
 * What several calls of one model cost together (a chat answer's rounds), each priced on its own: a long-context
 * rate applies to one prompt's size, never to the calls added up. `known` only when every call had a price.
 */
export function callsCost(
  model: { provider: string; model: string },
  calls: readonly (BilledUsage & { reportedCostUsd?: number })[],
  prices?: PriceOverrides,
): { usd: number; known: boolean } {
  const costs = calls.map((call) => callCost(model.model, call, prices, model.provider))
  const usd = costs.reduce((sum, c) => sum + c.usd, 0)
  return { usd: Math.round(usd * 1e8) / 1e8, known: costs.length > 0 && costs.every((c) => c.known) }
}

/** Builds a UsageEntry with the estimated cost filled in. */
export function usageEntry<P extends UsagePurpose>(input: {
  purpose: P
  /** The provider's id, or an agent engine's (`claude-code`, `codex`) for the calls it made. */
  model: { provider: ModelConfig['provider'] | string; model: string }
  usage: BilledUsage & { reasoningTokens?: number; reportedCostUsd?: number }
  durationMs: number
  taskNumber: number | null
  iteration: number | null
  prices?: PriceOverrides
}): UsageEntry<P> {
  const cost = callCost(input.model.model, input.usage, input.prices, input.model.provider)
  return {
    purpose: input.purpose,
    provider: input.model.provider,
    model: input.model.model,
    inputTokens: input.usage.inputTokens,
    outputTokens: input.usage.outputTokens,
    cacheReadTokens: input.usage.cacheReadTokens ?? 0,
    cacheWriteTokens: input.usage.cacheWriteTokens ?? 0,
    ...(input.usage.cacheWrite1hTokens ? { cacheWrite1hTokens: input.usage.cacheWrite1hTokens } : {}),
    reasoningTokens: input.usage.reasoningTokens ?? 0,
    durationMs: input.durationMs,
    costUsd: cost.usd,
    costKnown: cost.known,
    costSource: cost.source,
    taskNumber: input.taskNumber,
    iteration: input.iteration,
  }
}

/** Records without ever letting a store failure break an LLM call; `logger` keeps the failure. */
export function safeRecord(sink: UsageSink | undefined, entry: UsageEntry, logger: Logger): void {
  try {
    sink?.record(entry)
  } catch (err) {
    // usage is bookkeeping: a full disk must not fail the task
    logger.warn(`the usage of a ${entry.purpose} call could not be recorded`, err)
  }
}

/**
 * The one-hour part of a call's cache writes, from the provider's raw usage (the AI SDK's `usage.raw`; Anthropic
 * reports `cache_creation: { ephemeral_5m_input_tokens, ephemeral_1h_input_tokens }`, which the SDK does not
 * carry into its own fields). 0 when the provider does not say.
 */
export function oneHourCacheWrites(raw: unknown): number {
  if (!raw || typeof raw !== 'object') return 0
  const creation = (raw as { cache_creation?: unknown }).cache_creation
  if (!creation || typeof creation !== 'object') return 0
  const tokens = (creation as { ephemeral_1h_input_tokens?: unknown }).ephemeral_1h_input_tokens
  return typeof tokens === 'number' && Number.isFinite(tokens) && tokens > 0 ? tokens : 0
}
