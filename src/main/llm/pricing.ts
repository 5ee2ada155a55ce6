import { z } from 'zod'
import type { SettingsRepo } from '../store/settingsRepo'

/** USD per one million tokens. */
export interface Price {
  input: number
  output: number
}

/**
 * List prices of well-known hosted models (USD per 1M tokens, standard tier, no caching or batch discounts).
 * Matched by exact id first, then by the longest prefix, so dated ids ("gpt-4o-2024-08-06",
 * "claude-sonnet-4-5-20250929") find their family. Anything else (local models, unknown ids) is "unknown" and
 * costs 0. Users correct or extend this with the `llm.prices` setting.
 */
export const defaultPrices: Readonly<Record<string, Price>> = {
  'gpt-5': { input: 1.25, output: 10 },
  'gpt-5-mini': { input: 0.25, output: 2 },
  'gpt-5-nano': { input: 0.05, output: 0.4 },
  'gpt-4.1': { input: 2, output: 8 },
  'gpt-4.1-mini': { input: 0.4, output: 1.6 },
  'gpt-4.1-nano': { input: 0.1, output: 0.4 },
  'gpt-4o': { input: 2.5, output: 10 },
  'gpt-4o-mini': { input: 0.15, output: 0.6 },
  o3: { input: 2, output: 8 },
  'o3-mini': { input: 1.1, output: 4.4 },
  'o4-mini': { input: 1.1, output: 4.4 },
  'claude-opus-4-5': { input: 5, output: 25 },
  'claude-opus-4': { input: 15, output: 75 },
  'claude-sonnet-4': { input: 3, output: 15 },
  'claude-haiku-4-5': { input: 1, output: 5 },
  'claude-3-7-sonnet': { input: 3, output: 15 },
  'claude-3-5-sonnet': { input: 3, output: 15 },
  'claude-3-5-haiku': { input: 0.8, output: 4 },
}

export const PRICES_SETTING_KEY = 'llm.prices'

const priceSchema = z.object({ input: z.number().nonnegative(), output: z.number().nonnegative() })

export type PriceOverrides = Record<string, Price>

export interface PriceMatch extends Price {
  /** The table key that matched (the id itself or a prefix of it). */
  key: string
  source: 'override' | 'default'
}

function lookup(table: Record<string, Price>, id: string): { key: string; price: Price } | null {
  if (Object.hasOwn(table, id)) return { key: id, price: table[id]! }
  let best: string | null = null
  for (const key of Object.keys(table)) {
    if (id.startsWith(key) && (best === null || key.length > best.length)) best = key
  }
  return best === null ? null : { key: best, price: table[best]! }
}

/**
 * The price of a model id. Overrides beat defaults at the same level (exact before prefix; among prefixes the
 * longest wins, an override on a tie). Router-style ids ("openai/gpt-4o") are also tried without the vendor.
 */
export function priceFor(model: string, overrides: PriceOverrides = {}): PriceMatch | null {
  const ids = [model.trim()]
  const slash = model.lastIndexOf('/')
  if (slash >= 0) ids.push(model.slice(slash + 1).trim())
  for (const id of ids) {
    if (!id) continue
    if (Object.hasOwn(overrides, id)) return { ...overrides[id]!, key: id, source: 'override' }
    if (Object.hasOwn(defaultPrices, id)) return { ...defaultPrices[id]!, key: id, source: 'default' }
    const fromOverride = lookup(overrides, id)
    const fromDefault = lookup(defaultPrices, id)
    if (fromOverride && (!fromDefault || fromOverride.key.length >= fromDefault.key.length)) {
      return { ...fromOverride.price, key: fromOverride.key, source: 'override' }
    }
    if (fromDefault) return { ...fromDefault.price, key: fromDefault.key, source: 'default' }
  }
  return null
}

/** Estimated cost of one call in USD; `known: false` (and 0 USD) when the model has no price. */
export function estimateCost(
  model: string,
  usage: { inputTokens: number; outputTokens: number },
  overrides?: PriceOverrides,
): { usd: number; known: boolean } {
  const price = priceFor(model, overrides)
  if (!price) return { usd: 0, known: false }
  const usd = (usage.inputTokens * price.input + usage.outputTokens * price.output) / 1_000_000
  return { usd: Math.round(usd * 1e8) / 1e8, known: true }
}

/** Keeps the valid entries of a user-edited price table, drops the rest (a bad entry must not stop a task). */
export function parsePriceOverrides(value: unknown): PriceOverrides {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return {}
  const out: PriceOverrides = {}
  for (const [key, entry] of Object.entries(value as Record<string, unknown>)) {
    const parsed = priceSchema.safeParse(entry)
    if (key.trim() && parsed.success) out[key.trim()] = parsed.data
  }
  return out
}

/** The user's price table from the settings store (`llm.prices`: `{ [modelIdOrPrefix]: { input, output } }`). */
export function loadPriceOverrides(settings: Pick<SettingsRepo, 'get'>): PriceOverrides {
  return parsePriceOverrides(settings.get<unknown>(PRICES_SETTING_KEY))
}
