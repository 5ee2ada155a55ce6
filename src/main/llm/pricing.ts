import { z } from 'zod'
import type { SettingsRepo } from '../store'
import { catalogCost, catalogModel, catalogPrice, catalogPrices, type CatalogPrice } from './catalog'
import { candidateIds, catalogKey, validModelTable } from './catalogIds'

/**
 * USD per one million tokens, as the user sets them (`llm.prices`). `cacheRead`/`cacheWrite` price input served
 * from / written to the provider's prompt cache, `cacheWrite1h` a one-hour cache write; a price without them pays
 * the input price for reads and writes, and the write price for one-hour writes. Flat: no long-context tier.
 */
export interface Price {
  input: number
  output: number
  cacheRead?: number
  cacheWrite?: number
  cacheWrite1h?: number
}

export const PRICES_SETTING_KEY = 'llm.prices'

const priceSchema = z.object({
  input: z.number().nonnegative(),
  output: z.number().nonnegative(),
  cacheRead: z.number().nonnegative().optional(),
  cacheWrite: z.number().nonnegative().optional(),
  cacheWrite1h: z.number().nonnegative().optional(),
})

export type PriceOverrides = Record<string, Price>

export interface PriceMatch extends CatalogPrice {
  /** The user's table key, or the catalog's model id, that matched. */
  key: string
  source: 'override' | 'catalog'
}

/**
 * The tokens of one call as they are billed. `inputTokens` counts ALL prompt tokens, cache reads and writes
 * included (the AI SDK 6 meaning, and OpenAI's `input_tokens`; Anthropic's `input_tokens` is only the uncached
 * part, the SDK adds the cache counts to it); the uncached part is `inputTokens − cacheReadTokens −
 * cacheWriteTokens`. `cacheWrite1hTokens` is the part of `cacheWriteTokens` written for one hour (Anthropic's
 * `cache_creation.ephemeral_1h_input_tokens`); the rest are 5-minute writes. Output tokens include reasoning
 * tokens, billed at the output price by both providers.
 */
export interface BilledUsage {
  inputTokens: number
  outputTokens: number
  cacheReadTokens?: number
  cacheWriteTokens?: number
  cacheWrite1hTokens?: number
}

function withCache(price: Price): CatalogPrice {
  const cacheWrite = price.cacheWrite ?? price.input
  return {
    input: price.input,
    output: price.output,
    cacheRead: price.cacheRead ?? price.input,
    cacheWrite,
    cacheWrite1h: price.cacheWrite1h ?? cacheWrite,
  }
}

type Decision =
  | { source: 'override'; key: string; price: Price }
  | { source: 'catalog'; hit: NonNullable<ReturnType<typeof catalogModel>> }

/**
 * Whose price applies: the user's `llm.prices` (exact id, then the longest prefix) or the catalog's model (its
 * vendor's match rules). An exact id of yours wins; then the catalog when it names the id itself; then the more
 * specific of your prefix and the catalog's model id, yours on a tie (your "gpt-4o" covers "gpt-4o-2024-08-06",
 * not "gpt-4o-mini", which the catalog prices). Router ids ("openai/gpt-4o") are also tried without the vendor.
 */
function decide(model: string, overrides: PriceOverrides, provider?: string): Decision | null {
  let own: string | null = null
  for (const id of candidateIds(model)) {
    own = catalogKey(id, Object.keys(overrides))
    if (own === id) return { source: 'override', key: own, price: overrides[own]! }
    if (own) break
  }
  const hit = catalogModel(model, provider)
  if (hit && hit.key === hit.matchedId) return { source: 'catalog', hit }
  if (own && (!hit || own.length >= hit.key.length))
    return { source: 'override', key: own, price: overrides[own]! }
  return hit ? { source: 'catalog', hit } : null
}

/**
 * The price of a model id: the user's `llm.prices`, then the model catalog (catalog.ts: genai-prices' bundled
 * data). `provider` is the Ralph provider or engine that made the call (a local one has no catalog price). Null for
 * local and unknown models ("price unknown").
 */
export function priceFor(
  model: string,
  overrides: PriceOverrides = {},
  provider?: string,
  at: Date = new Date(),
): PriceMatch | null {
  const decision = decide(model, overrides, provider)
  if (!decision) return null
  if (decision.source === 'override')
    return { ...withCache(decision.price), key: decision.key, source: 'override' }
  const price = catalogPrice(decision.hit, at)
  return price ? { ...price, key: decision.hit.key, source: 'catalog' } : null
}

/** The catalog's prices by model id (the user's overrides come on top: `priceFor`). */
export function builtInPrices(): Readonly<Record<string, CatalogPrice>> {
  return catalogPrices()
}

/** The uncached part of a call's input (never negative, whatever a server reported). */
export function uncachedInputTokens(usage: BilledUsage): number {
  return Math.max(0, usage.inputTokens - (usage.cacheReadTokens ?? 0) - (usage.cacheWriteTokens ?? 0))
}

/** One call at flat rates: uncached input, cache reads, 5-minute and 1-hour writes and output each at its own. */
export function flatCost(usage: BilledUsage, rates: CatalogPrice): number {
  const writes = usage.cacheWriteTokens ?? 0
  const oneHour = Math.min(writes, usage.cacheWrite1hTokens ?? 0)
  return (
    (uncachedInputTokens(usage) * rates.input +
      (usage.cacheReadTokens ?? 0) * rates.cacheRead +
      (writes - oneHour) * rates.cacheWrite +
      oneHour * rates.cacheWrite1h +
      usage.outputTokens * rates.output) /
    1_000_000
  )
}

/**
 * Estimated cost of one call in USD: each kind of token at its own rate, and on the catalog's models a prompt over
 * the long-context threshold at the long-context rates (Claude Sonnet 4.5 over 200K input tokens: 2× input, 1.5×
 * output). `known: false` (and 0 USD) when the model has no price. `at`: when the call was made.
 */
export function estimateCost(
  model: string,
  usage: BilledUsage,
  overrides: PriceOverrides = {},
  provider?: string,
  at: Date = new Date(),
): { usd: number; known: boolean } {
  const decision = decide(model, overrides, provider)
  if (!decision) return { usd: 0, known: false }
  let usd: number
  if (decision.source === 'override') usd = flatCost(usage, withCache(decision.price))
  else {
    if (!catalogPrice(decision.hit, at)) return { usd: 0, known: false }
    usd = catalogCost(
      decision.hit,
      {
        inputTokens: usage.inputTokens,
        outputTokens: usage.outputTokens,
        cacheReadTokens: usage.cacheReadTokens ?? 0,
        cacheWriteTokens: usage.cacheWriteTokens ?? 0,
        cacheWrite1hTokens: usage.cacheWrite1hTokens ?? 0,
      },
      at,
    )
  }
  return { usd: Math.round(usd * 1e10) / 1e10, known: true }
}

/** Keeps the valid entries of a user-edited price table, drops the rest (a bad entry must not stop a task). */
export function parsePriceOverrides(value: unknown): PriceOverrides {
  return validModelTable(value, priceSchema)
}

/**
 * The user's price table from the settings store (`llm.prices`:
 * `{ [modelIdOrPrefix]: { input, output, cacheRead?, cacheWrite?, cacheWrite1h? } }`).
 */
export function loadPriceOverrides(settings: Pick<SettingsRepo, 'get'>): PriceOverrides {
  return parsePriceOverrides(settings.get<unknown>(PRICES_SETTING_KEY))
}

/** The rates `ralph config set price MODEL …` takes, in order (and how its usage names them). */
const PRICE_ARGS = [
  { key: 'input', name: 'INPUT' },
  { key: 'output', name: 'OUTPUT' },
  { key: 'cacheRead', name: 'CACHE_READ' },
  { key: 'cacheWrite', name: 'CACHE_WRITE' },
  { key: 'cacheWrite1h', name: 'CACHE_WRITE_1H' },
] as const

export const PRICE_ARGS_USAGE = 'INPUT OUTPUT [CACHE_READ [CACHE_WRITE [CACHE_WRITE_1H]]]'

/**
 * A price from its rates as typed (USD per 1M tokens, in PRICE_ARGS order; a leading "$" is fine): the price, or
 * an error naming the value that is wrong and what a right one looks like.
 */
export function parsePriceArgs(values: readonly string[]): Price {
  if (values.length < 2)
    throw new Error(`Give at least the input and output prices: ${PRICE_ARGS_USAGE} (USD per 1M tokens).`)
  if (values.length > PRICE_ARGS.length)
    throw new Error(
      `Too many prices (${values.length}): at most ${PRICE_ARGS_USAGE} (USD per 1M tokens), e.g. 3 15 0.3 3.75 6.`,
    )
  const price: Partial<Record<keyof Price, number>> = {}
  values.forEach((text, i) => {
    const arg = PRICE_ARGS[i]!
    const trimmed = text.trim().replace(/^\$/, '')
    const n = trimmed === '' ? Number.NaN : Number(trimmed)
    if (!Number.isFinite(n) || n < 0)
      throw new Error(
        `${arg.name} must be a price in USD per 1M tokens, 0 or more, not "${text}" (e.g. 3 15 0.3 3.75 6 for ${PRICE_ARGS_USAGE}).`,
      )
    price[arg.key] = n
  })
  return price as Price
}

/** The user's price for a model id or prefix, written where `ralph config set price` and the composer keep it. */
export function setPriceOverride(
  settings: Pick<SettingsRepo, 'get' | 'set'>,
  model: string,
  price: Price,
): void {
  const key = model.trim()
  if (!key) throw new Error('Name the model (or a model-id prefix) the price is for.')
  settings.set(PRICES_SETTING_KEY, { ...loadPriceOverrides(settings), [key]: priceSchema.parse(price) })
}
