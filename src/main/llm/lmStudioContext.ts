import { localCandidates } from './localServers'
import { timeoutSignal } from '../workspace'

/**
 * LM Studio runs a model at the context length it was loaded with (the slider in its load dialog, 4,096 by
 * default) whatever the request says, and reports it on its own REST API: `GET /api/v0/models` lists each model
 * with `state`, `loaded_context_length` (when loaded) and `max_context_length` (trained).
 */

export const LM_STUDIO_PORT = '1234'

/**
 * Whether a chat-completions base URL is LM Studio: its default port on this machine, or a server named
 * "LM Studio" in RALPH_LOCAL_SERVERS. Other servers are never probed, so they see no extra request.
 */
export function isLmStudio(baseUrl: string | null | undefined, env: NodeJS.ProcessEnv): boolean {
  if (!baseUrl) return false
  if (!URL.canParse(baseUrl)) return false
  const url = new URL(baseUrl)
  const loopback = ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname)
  if (loopback && url.port === LM_STUDIO_PORT) return true
  const same = (a: string) => a.replace(/\/+$/, '') === baseUrl.replace(/\/+$/, '')
  return (
    env.RALPH_LOCAL_SERVERS !== undefined &&
    localCandidates(env).some((c) => c.name.trim().toLowerCase() === 'lm studio' && same(c.baseUrl))
  )
}

export interface LmStudioModelFacts {
  /** The context the loaded model runs with; null when the model is not loaded. */
  loaded: number | null
  /** The model's trained window. */
  max: number | null
}

function positiveInt(value: unknown): number | null {
  return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : null
}

/** The model's entry in a `/api/v0/models` answer; null when the server does not list it. */
export function parseLmStudioModels(body: unknown, model: string): LmStudioModelFacts | null {
  const data = (body as { data?: unknown } | null)?.data
  if (!Array.isArray(data)) return null
  const entry = data.find((m) => (m as { id?: unknown } | null)?.id === model) as
    | Record<string, unknown>
    | undefined
  if (!entry) return null
  return {
    loaded: entry.state === 'loaded' ? positiveInt(entry.loaded_context_length) : null,
    max: positiveInt(entry.max_context_length),
  }
}

/** The LM Studio default a model is loaded with on demand (just-in-time loading) when the user chose nothing. */
export const LM_STUDIO_DEFAULT_LOADED = 4_096

export interface LmStudioWindow {
  tokens: number
  limitedBy: 'loaded' | 'not-loaded'
  facts: LmStudioModelFacts
}

/**
 * The window to budget: the loaded context when the model is loaded; otherwise LM Studio will load it on the first
 * request with its default, so the budget is that default (never more than the trained window).
 */
export function lmStudioWindow(facts: LmStudioModelFacts): LmStudioWindow {
  if (facts.loaded !== null) return { tokens: facts.loaded, limitedBy: 'loaded', facts }
  const tokens = Math.min(LM_STUDIO_DEFAULT_LOADED, facts.max ?? LM_STUDIO_DEFAULT_LOADED)
  return { tokens, limitedBy: 'not-loaded', facts }
}

/**
 * Asks LM Studio about a model. Not cached: the user may reload the model with another context length at any time,
 * and the question is one local GET per task. Null when the server does not answer or does not list the model.
 */
export async function lmStudioModelFacts(baseUrl: string, model: string): Promise<LmStudioModelFacts | null> {
  const origin = baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '')
  const res = await fetch(`${origin}/api/v0/models`, { signal: timeoutSignal(5_000) })
  if (!res.ok) return null
  return parseLmStudioModels(await res.json(), model)
}
