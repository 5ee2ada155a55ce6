import { z } from 'zod'
import type { SettingsRepo } from '../store'
import { catalogModel } from './catalog'
import { validModelTable } from './catalogIds'
import type { ModelConfig } from './createModel'
import { isLmStudio, lmStudioModelFacts, lmStudioWindow } from './lmStudioContext'
import { migrateLegacyOllama, resolveOllamaWindow, type OllamaWindowLimit } from './ollamaContext'

/**
 * Context windows (input + output tokens) by model family, for models the catalog (catalog.ts) gives no window:
 * local families and hosted models it lists without one. Matched by exact id, then the longest prefix, also
 * without a router's vendor prefix ("openai/gpt-4o"). Users correct or extend it with
 * `ralph config set context MODEL TOKENS` (the `llm.contextWindows` setting).
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
 * ('built-in'): the model catalog's window for hosted models (catalog.ts), else the table above. `provider`: the
 * Ralph provider serving it (a local one never takes a hosted model's window).
 */
export function contextWindowFor(
  model: string,
  overrides: ContextWindowOverrides = {},
  provider?: string,
): ContextWindowMatch {
  const ids = [model.trim()]
  const slash = model.lastIndexOf('/')
  if (slash >= 0) ids.push(model.slice(slash + 1).trim())
  for (const id of ids.filter(Boolean)) {
    if (Object.hasOwn(overrides, id)) return { tokens: overrides[id]!, key: id, source: 'override' }
    const own = longestPrefix(overrides, id)
    if (own) return { tokens: overrides[own]!, key: own, source: 'override' }
  }
  const fromCatalog = catalogModel(model, provider)
  if (fromCatalog?.info.context_window) {
    return { tokens: fromCatalog.info.context_window, key: fromCatalog.key, source: 'built-in' }
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
  return validModelTable(value, tokensSchema)
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

/** Below this a local model cannot hold the system prompt, the tools and a few files: agentic work fails. */
export const AGENTIC_MIN_CONTEXT = 16_384

export interface ResolvedContextWindow {
  tokens: number
  /** Where it came from: the tables (hosted and unknown models), or the local server that runs the model. */
  source: ContextWindowMatch['source'] | 'ollama' | 'lm-studio'
  /** For a local model, what decided the size (see ollamaWindow and lmStudioWindow). */
  limitedBy?: OllamaWindowLimit | 'loaded' | 'not-loaded'
  /** Why the server could not be asked, when it could not. */
  error?: string
}

/**
 * The window an iteration budgets against. A local server decides what it really runs, so it is asked: Ollama's
 * `/api/show` gives the window that `createModel` then sends as `num_ctx` (the same function, remembered per model,
 * so the two always agree; the user's per-model table does not apply there, `llm.localContextMax` does), and LM
 * Studio reports the context its model was loaded with. Everything else comes from the tables.
 */
export async function resolveContextWindow(
  input: Pick<ModelConfig, 'provider' | 'model' | 'baseUrl' | 'localContextMax'>,
  overrides: ContextWindowOverrides = {},
  env: NodeJS.ProcessEnv = process.env,
): Promise<ResolvedContextWindow> {
  const config = migrateLegacyOllama(input)
  const userMax = config.localContextMax ?? null
  if (config.provider === 'ollama') {
    const window = await resolveOllamaWindow(config.baseUrl, config.model, userMax)
    return {
      tokens: window.tokens,
      source: 'ollama',
      limitedBy: window.limitedBy,
      ...(window.error ? { error: window.error } : {}),
    }
  }
  const table = contextWindowFor(config.model, overrides)
  if (config.provider === 'openai-compatible' && config.baseUrl && isLmStudio(config.baseUrl, env)) {
    try {
      const facts = await lmStudioModelFacts(config.baseUrl, config.model)
      if (facts) {
        const window = lmStudioWindow(facts)
        // The loaded context is what runs; a smaller window the user chose still applies.
        const caps = [window.tokens, userMax, table.source === 'override' ? table.tokens : null]
        const tokens = Math.min(...caps.filter((n): n is number => n !== null))
        return { tokens, source: 'lm-studio', limitedBy: window.limitedBy }
      }
    } catch (err) {
      return { ...table, error: err instanceof Error ? err.message : String(err) }
    }
  }
  return { tokens: table.tokens, source: table.source }
}

/**
 * What to tell a user whose local model's window is too small for agentic work, with how to raise it; null when
 * the window is fine or the model is not local.
 */
export function localContextAdvice(model: string, window: ResolvedContextWindow): string | null {
  if (window.tokens >= AGENTIC_MIN_CONTEXT) return null
  const size = `${model} runs with a ${window.tokens}-token context window, under the ${AGENTIC_MIN_CONTEXT} tokens agentic work needs: iterations will checkpoint early and lose detail.`
  if (window.source === 'ollama') {
    switch (window.limitedBy) {
      case 'trained':
        return `${size} The model was trained for ${window.tokens} tokens, so it cannot run with more: pick a model with a longer context (ollama show MODEL lists it).`
      case 'modelfile':
        return `${size} Its Modelfile sets PARAMETER num_ctx ${window.tokens}: raise it (ollama show --modelfile ${model} > Modelfile, edit the line, ollama create NAME -f Modelfile) or run a model without it.`
      case 'user-max':
        return `${size} Your maximum for local models limits it: raise it with \`ralph config set localContextMax 32768\` (RALPH_LOCAL_CONTEXT_MAX), or Max context for local models in Settings.`
      default:
        // OLLAMA_CONTEXT_LENGTH on the server is not advice here: the num_ctx Ralph sends overrides it.
        return `${size} Ralph sends it as num_ctx on every call (the server's OLLAMA_CONTEXT_LENGTH does not apply): raise it with \`ralph config set localContextMax 32768\` or Max context for local models in Settings.`
    }
  }
  if (window.source === 'lm-studio') {
    return window.limitedBy === 'loaded'
      ? `${size} LM Studio loaded it with that context length: unload it and load it again with a larger "Context Length" in the load settings (lms load ${model} --context-length 32768).`
      : `${size} The model is not loaded, and LM Studio loads it with its default context length: load it first with a larger "Context Length" (lms load ${model} --context-length 32768).`
  }
  return null
}
