import {
  calcPrice,
  findProvider,
  type ModelInfo,
  type ModelPrice,
  type TieredPrices,
  type Usage,
} from '@pydantic/genai-prices'
import { candidateIds } from './catalogIds'

/**
 * The model catalog: @pydantic/genai-prices' bundled data (exact per-model rates, cache reads, 5-minute and 1-hour
 * cache writes, long-context tiers, context windows and each vendor's id match rules). Only the bundled data is
 * read unless the user turned on "Update prices from the internet" (catalogUpdate.ts): then the data Ralph last
 * downloaded and kept in the app data folder replaces it.
 *
 * Only hosted vendors are asked. An open-weight model may run on a local server with any window and no price, so a
 * call through Ollama is never priced from here, an Ollama tag ("gpt-oss:20b", "deepseek-r1:7b") never matches, and
 * the open-weight families the vendors also list (gpt-oss, deepseek-r1 and its distills, gemma) match only when the
 * call went to that vendor itself. An OpenAI-compatible server (a gateway, vLLM …) serving a hosted model's id is
 * priced as that model.
 */
export const CATALOG_VENDORS = ['anthropic', 'openai', 'google', 'x-ai', 'deepseek'] as const
export type CatalogVendor = (typeof CATALOG_VENDORS)[number]

/** Who bills a call made through a Ralph provider or an agent engine; null: a local server (no catalog price). */
const BILLED_BY: Readonly<Record<string, CatalogVendor | null>> = {
  openai: 'openai',
  anthropic: 'anthropic',
  codex: 'openai',
  'claude-code': 'anthropic',
  ollama: null,
}

/** Open-weight families in the hosted vendors' lists: often run locally under the same names. */
const OPEN_WEIGHT = /^(gpt-oss|deepseek-r1|gemma)/i

/** A router's vendor prefix ("openai/gpt-4o", "x-ai/grok-4") as the catalog names the vendor. */
const ROUTER_VENDORS: Readonly<Record<string, CatalogVendor>> = {
  openai: 'openai',
  anthropic: 'anthropic',
  google: 'google',
  'x-ai': 'x-ai',
  xai: 'x-ai',
  deepseek: 'deepseek',
}

/** USD per one million tokens, every cache rate filled in. */
export interface Rates {
  input: number
  output: number
  /** Input read from the provider's prompt cache (the input price where the vendor gives no discount). */
  cacheRead: number
  /** Input written to the prompt cache for five minutes (OpenAI bills writes as plain input). */
  cacheWrite: number
  /** Input written to the prompt cache for one hour (Anthropic: 2× input); the 5-minute rate where there is none. */
  cacheWrite1h: number
}

export interface CatalogPrice extends Rates {
  /** The long-context rates: every token of a call whose prompt (all input tokens) is over `above` tokens. */
  longContext?: Rates & { above: number }
}

export interface CatalogModel {
  vendor: CatalogVendor
  /** The catalog's id of the model (its family: `claude-sonnet-4-5` for `claude-sonnet-4-5-20250929`). */
  key: string
  /** The id the catalog matched (a router's vendor prefix removed). */
  matchedId: string
  info: ModelInfo
}

const NO_USAGE: Usage = { input_tokens: 0, output_tokens: 0 }
const found = new Map<string, CatalogModel | null>()

/**
 * The catalog's model for an id, by the vendor's own match rules (dated ids and aliases included), tried as given
 * and without a router's vendor. `provider` is the Ralph provider or engine that made the call: it decides the
 * vendor (and a local one means no catalog model at all); without it every hosted vendor is asked.
 */
export function catalogModel(model: string, provider?: string): CatalogModel | null {
  const memo = `${provider ?? ''}\n${model}`
  if (!found.has(memo)) found.set(memo, lookUp(model, provider))
  return found.get(memo)!
}

function lookUp(model: string, provider: string | undefined): CatalogModel | null {
  const billedBy =
    provider !== undefined && Object.hasOwn(BILLED_BY, provider) ? BILLED_BY[provider] : undefined
  if (billedBy === null) return null
  const slash = model.indexOf('/')
  const router = slash > 0 ? model.slice(0, slash).trim().toLowerCase() : null
  const vendors: readonly CatalogVendor[] = billedBy
    ? [billedBy]
    : router !== null
      ? Object.hasOwn(ROUTER_VENDORS, router)
        ? [ROUTER_VENDORS[router]!]
        : []
      : CATALOG_VENDORS
  for (const id of candidateIds(model)) {
    if (id.includes('/') || id.includes(':') || (!billedBy && OPEN_WEIGHT.test(id))) continue
    for (const vendor of vendors) {
      const hit = calcPrice(NO_USAGE, id, { providerId: vendor })
      if (hit && (CATALOG_VENDORS as readonly string[]).includes(hit.provider.id)) {
        return { vendor: hit.provider.id as CatalogVendor, key: hit.model.id, matchedId: id, info: hit.model }
      }
    }
  }
  return null
}

/** The tokens of one call in the catalog's terms (see pricing.ts BilledUsage for the meanings). */
export interface CatalogUsage {
  inputTokens: number
  outputTokens: number
  cacheReadTokens: number
  cacheWriteTokens: number
  cacheWrite1hTokens: number
}

/**
 * The catalog's cost of one call in USD, at the model's rates on `at` (a vendor's price change has a start date).
 * Every kind of token at its own rate, and a prompt over a long-context threshold at the long-context rates.
 */
export function catalogCost(hit: CatalogModel, usage: CatalogUsage, at: Date = new Date()): number {
  // genai-prices refuses parts larger than their whole; a server's odd report must not fail the call's record.
  const cacheRead = Math.max(0, usage.cacheReadTokens)
  const cacheWrite = Math.max(0, usage.cacheWriteTokens)
  const priced = calcPrice(
    {
      input_tokens: Math.max(usage.inputTokens, cacheRead + cacheWrite),
      cache_read_tokens: cacheRead,
      cache_write_tokens: cacheWrite,
      cache_write_1h_tokens: Math.min(cacheWrite, Math.max(0, usage.cacheWrite1hTokens)),
      output_tokens: Math.max(0, usage.outputTokens),
    },
    hit.matchedId,
    { providerId: hit.vendor, timestamp: at },
  )
  if (!priced) throw new Error(`The model catalog no longer prices ${hit.matchedId}.`)
  return priced.total_price
}

type Rate = number | TieredPrices | undefined

const base = (rate: Rate): number | undefined => (typeof rate === 'object' ? rate.base : rate)
const tier = (rate: Rate): { start: number; price: number } | undefined =>
  typeof rate === 'object' ? rate.tiers[0] : undefined

function ratesOf(prices: ModelPrice, pick: (rate: Rate) => number | undefined): Rates | null {
  const input = pick(prices.input_mtok)
  const output = pick(prices.output_mtok)
  if (input === undefined || output === undefined) return null
  const cacheWrite = pick(prices.cache_write_mtok) ?? input
  return {
    input,
    output,
    cacheRead: pick(prices.cache_read_mtok) ?? input,
    cacheWrite,
    cacheWrite1h: pick(prices.cache_write_1h_mtok) ?? cacheWrite,
  }
}

/** A model's rates on `at` (for display and the CLI's price table); null when it has no per-token price. */
export function catalogPrice(hit: CatalogModel, at: Date = new Date()): CatalogPrice | null {
  const resolved = calcPrice(NO_USAGE, hit.matchedId, { providerId: hit.vendor, timestamp: at })
  if (!resolved) return null
  const prices = resolved.model_price
  const standard = ratesOf(prices, base)
  if (!standard) return null
  const threshold = tier(prices.input_mtok)
  if (!threshold) return standard
  const long = ratesOf(prices, (rate) => tier(rate)?.price ?? base(rate))
  return long ? { ...standard, longContext: { ...long, above: threshold.start } } : standard
}

/** Forgets every lookup: the catalog's data was just replaced (catalogUpdate.ts), the next pricing reads the new. */
export function forgetCatalogLookups(): void {
  found.clear()
  priced = null
}

/** The catalog's context window of a hosted model (input + output tokens), or null when it does not know it. */
export function catalogContextWindow(model: string, provider?: string): number | null {
  return catalogModel(model, provider)?.info.context_window ?? null
}

let priced: Readonly<Record<string, CatalogPrice>> | null = null

/** Every priced, current model of the hosted vendors by catalog id (`ralph config get price`). */
export function catalogPrices(): Readonly<Record<string, CatalogPrice>> {
  if (priced) return priced
  const out: Record<string, CatalogPrice> = {}
  for (const vendor of CATALOG_VENDORS) {
    for (const info of findProvider({ providerId: vendor })?.models ?? []) {
      if (info.deprecated || Object.hasOwn(out, info.id)) continue
      const price = catalogPrice({ vendor, key: info.id, matchedId: info.id, info })
      if (price) out[info.id] = price
    }
  }
  priced = out
  return priced
}
