import { z } from 'zod'
import type { SettingsRepo } from '../store/settingsRepo'
import { catalogEntry } from './catalog'

/**
 * Context windows (input + output tokens) of well-known hosted models, matched like the price table: exact id,
 * then the longest prefix, also without a router's vendor prefix ("openai/gpt-4o"). Users correct or extend it
 * with `ralph config set context MODEL TOKENS` (the `llm.contextWindows` setting).
 */
export const defaultContextWindows: Readonly<Record<string, number>> = {
  'gpt-5': 400_000,
  'gpt-4.1': 1_047_576,
  'gpt-4o': 128_000,
  'gpt-4-turbo': 128_000,
  o1: 200_000,
  o3: 200_000,
  'o4-mini': 200_000,
  'claude-': 200_000,
  'gemini-1.5': 1_000_000,
  'gemini-2': 1_000_000,
  'deepseek-': 64_000,
  'qwen2.5-coder': 32_768,
  'llama3.1': 128_000,
}

/**
 * Unknown models (most local ones) get a small window on purpose: a local server often truncates the prompt
 * silently at its own limit instead of failing, so guessing high loses work without any error.
 */
export const DEFAULT_CONTEXT_WINDOW = 16_384
export const MIN_CONTEXT_WINDOW = 1_024

export const CONTEXT_SETTING_KEY = 'llm.contextWindows'

export type ContextWindowOverrides = Record<string, number>

export interface ContextWindowMatch {
  tokens: number
  /** The table key that matched; null for the fallback. */
  key: string | null
  source: 'override' | 'built-in' | 'fallback'
}

const tokensSchema = z.number().int().min(MIN_CONTEXT_WINDOW).max(100_000_000)

function longestPrefix(table: Record<string, number>, id: string): string | null {
  let best: string | null = null
  for (const key of Object.keys(table)) {
    if (id.startsWith(key) && (best === null || key.length > best.length)) best = key
  }
  return best
}

/**
 * The context window of a model id: the user's table first (exact, then prefix), then what ships with Ralph
 * ('built-in'): the model catalog's window for hosted models (catalog.ts), else the table above.
 */
export function contextWindowFor(model: string, overrides: ContextWindowOverrides = {}): ContextWindowMatch {
  const ids = [model.trim()]
  const slash = model.lastIndexOf('/')
  if (slash >= 0) ids.push(model.slice(slash + 1).trim())
  for (const id of ids.filter(Boolean)) {
    if (Object.hasOwn(overrides, id)) return { tokens: overrides[id]!, key: id, source: 'override' }
    const own = longestPrefix(overrides, id)
    if (own) return { tokens: overrides[own]!, key: own, source: 'override' }
  }
  const fromCatalog = catalogEntry(model)
  if (fromCatalog?.entry.contextWindow) {
    return { tokens: fromCatalog.entry.contextWindow, key: fromCatalog.key, source: 'built-in' }
  }
  for (const id of ids.filter(Boolean)) {
    if (Object.hasOwn(defaultContextWindows, id))
      return { tokens: defaultContextWindows[id]!, key: id, source: 'built-in' }
    const builtIn = longestPrefix(defaultContextWindows, id)
    if (builtIn) return { tokens: defaultContextWindows[builtIn]!, key: builtIn, source: 'built-in' }
  }
  return { tokens: DEFAULT_CONTEXT_WINDOW, key: null, source: 'fallback' }
}

/** Keeps the valid entries of the user's table and drops the rest (a bad entry must not stop a task). */
export function parseContextWindowOverrides(value: unknown): ContextWindowOverrides {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return {}
  const out: ContextWindowOverrides = {}
  for (const [key, entry] of Object.entries(value as Record<string, unknown>)) {
    const parsed = tokensSchema.safeParse(entry)
    if (key.trim() && parsed.success) out[key.trim()] = parsed.data
  }
  return out
}

/** Validates a window the user typed ("128000", "128k", "1m"); null when it is not a usable size. */
export function parseContextTokens(text: string): number | null {
  const match = /^\s*(\d+(?:\.\d+)?)\s*([km]?)\s*$/i.exec(text)
  if (!match) return null
  const scale = { '': 1, k: 1_000, m: 1_000_000 }[match[2]!.toLowerCase() as '' | 'k' | 'm']
  const tokens = Math.round(Number(match[1]) * scale)
  return tokensSchema.safeParse(tokens).success ? tokens : null
}

export function loadContextWindowOverrides(settings: Pick<SettingsRepo, 'get'>): ContextWindowOverrides {
  return parseContextWindowOverrides(settings.get<unknown>(CONTEXT_SETTING_KEY))
}
