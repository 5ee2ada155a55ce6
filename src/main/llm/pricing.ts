import { z } from 'zod'
import type { SettingsRepo } from '../store'
import { candidateIds, catalogKey, catalogPrices, validModelTable } from './catalog'

/**
 * USD per one million tokens. `cacheRead`/`cacheWrite` price input served from / written to the provider's prompt
 * cache; a user's override without them pays the input price for both.
 */
export interface Price {
  input: number
  output: number
  cacheRead?: number
  cacheWrite?: number
}

export const PRICES_SETTING_KEY = 'llm.prices'

const priceSchema = z.object({
  input: z.number().nonnegative(),
  output: z.number().nonnegative(),
  cacheRead: z.number().nonnegative().optional(),
  cacheWrite: z.number().nonnegative().optional(),
})

export type PriceOverrides = Record<string, Price>

export interface PriceMatch {
  input: number
  output: number
  cacheRead: number
  cacheWrite: number
  /** The table key that matched (the id itself or a prefix of it). */
  key: string
  source: 'override' | 'catalog'
}

/**
 * The tokens of one call as they are billed. `inputTokens` counts ALL prompt tokens, cache reads and writes
 * included (the AI SDK 6 meaning, and OpenAI's `input_tokens`; Anthropic's `input_tokens` is only the uncached
 * part, the SDK adds the cache counts to it); the uncached part is `inputTokens − cacheReadTokens −
 * cacheWriteTokens`. Output tokens include reasoning tokens, billed at the output price by both providers.
 */
export interface BilledUsage {
  inputTokens: number
  outputTokens: number
  cacheReadTokens?: number
  cacheWriteTokens?: number
}

function withCache(price: Price): Omit<PriceMatch, 'key' | 'source'> {
  return {
    input: price.input,
    output: price.output,
    cacheRead: price.cacheRead ?? price.input,
    cacheWrite: price.cacheWrite ?? price.input,
  }
}

/**
 * The price of a model id: the user's `llm.prices` first (exact, then the longest prefix), then the model
 * catalog (catalog.ts: tokenlens' offline models.dev snapshot). Router-style ids ("openai/gpt-4o") are also tried
 * without the vendor. Null for local and unknown models ("price unknown").
 */
export function priceFor(model: string, overrides: PriceOverrides = {}): PriceMatch | null {
  const catalog = catalogPrices()
  const yours = (key: string): PriceMatch => ({ ...withCache(overrides[key]!), key, source: 'override' })
  const theirs = (key: string): PriceMatch => ({ ...catalog[key]!, key, source: 'catalog' })
  for (const id of candidateIds(model)) {
    // Exact before prefix; among prefixes the longest wins, yours on a tie.
    const own = catalogKey(id, Object.keys(overrides))
    const known = catalogKey(id, Object.keys(catalog))
    if (own === id) return yours(own)
    if (known === id) return theirs(known)
    if (own && (!known || own.length >= known.length)) return yours(own)
    if (known) return theirs(known)
  }
  return null
}

/** The catalog's prices by key (the user's overrides come on top: `priceFor`). */
export function builtInPrices(): Readonly<Record<string, Omit<PriceMatch, 'key' | 'source'>>> {
  return catalogPrices()
}

/** The uncached part of a call's input (never negative, whatever a server reported). */
export function uncachedInputTokens(usage: BilledUsage): number {
  return Math.max(0, usage.inputTokens - (usage.cacheReadTokens ?? 0) - (usage.cacheWriteTokens ?? 0))
}

/**
 * Estimated cost of one call in USD: uncached input, cache reads, cache writes and output each at their own
 * rate. `known: false` (and 0 USD) when the model has no price.
 */
export function estimateCost(
  model: string,
  usage: BilledUsage,
  overrides?: PriceOverrides,
): { usd: number; known: boolean } {
  const price = priceFor(model, overrides)
  if (!price) return { usd: 0, known: false }
  const usd =
    (uncachedInputTokens(usage) * price.input +
      (usage.cacheReadTokens ?? 0) * price.cacheRead +
      (usage.cacheWriteTokens ?? 0) * price.cacheWrite +
      usage.outputTokens * price.output) /
    1_000_000
  return { usd: Math.round(usd * 1e8) / 1e8, known: true }
}

/** Keeps the valid entries of a user-edited price table, drops the rest (a bad entry must not stop a task). */
export function parsePriceOverrides(value: unknown): PriceOverrides {
  return validModelTable(value, priceSchema)
}

/**
 * The user's price table from the settings store (`llm.prices`:
 * `{ [modelIdOrPrefix]: { input, output, cacheRead?, cacheWrite? } }`).
 */
export function loadPriceOverrides(settings: Pick<SettingsRepo, 'get'>): PriceOverrides {
  return parsePriceOverrides(settings.get<unknown>(PRICES_SETTING_KEY))
}
