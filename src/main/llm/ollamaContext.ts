import type { ProviderId } from '../../shared/settings'
import { timeoutSignal } from '../workspace'

/**
 * What context an Ollama model runs with. Ollama's OpenAI-compatible `/v1` ignores `num_ctx` and runs every request
 * at the server default (4,096 tokens), cutting the prompt from the front, system prompt first; so the `ollama`
 * provider speaks the native API and sends `options.num_ctx` on every call, and the loop budgets exactly that.
 */

export const OLLAMA_DEFAULT_BASE_URL = 'http://127.0.0.1:11434'

/**
 * num_ctx when neither the user nor the model's Modelfile chose one. A model's trained window (128K for llama3.1)
 * is often more KV cache than the machine holds: Ollama allocates the whole num_ctx when it loads the model, so
 * asking for 128K on an 8B model wants ~16 GB beyond the weights, and the load fails or spills to the CPU. 32K
 * fits beside an 8B model on a 16 GB machine and leaves an iteration room to read files and work; a user with more
 * memory raises it with `llm.localContextMax` (or a Modelfile's `PARAMETER num_ctx`).
 */
export const OLLAMA_DEFAULT_NUM_CTX = 32_768

/** The server's address without the path the user may have saved: `/v1` (the old compatible API) or `/api`. */
export function ollamaOrigin(baseUrl: string | null | undefined): string {
  const raw = (baseUrl ?? '').trim() || OLLAMA_DEFAULT_BASE_URL
  return raw.replace(/\/+$/, '').replace(/\/(v1|api)$/, '')
}

/**
 * A saved "Ollama through its OpenAI-compatible /v1" (the only way before the `ollama` provider) runs at the
 * server's 4,096-token default whatever the loop budgets. Such a setting means Ollama: its default port with
 * `/v1`, which no other server uses. It becomes the native provider at the same server.
 */
export function migrateLegacyOllama<T extends { provider: ProviderId; baseUrl?: string | null }>(
  config: T,
): T {
  if (config.provider !== 'openai-compatible' || !config.baseUrl) return config
  if (!URL.canParse(config.baseUrl)) return config
  const url = new URL(config.baseUrl)
  if (url.port !== '11434' || !/^\/v1\/?$/.test(url.pathname)) return config
  return { ...config, provider: 'ollama', baseUrl: ollamaOrigin(config.baseUrl) }
}

/** Facts `POST /api/show` gives about one model. */
export interface OllamaModelFacts {
  /** `model_info["<arch>.context_length"]`: the window the model was trained for; null when not reported. */
  trained: number | null
  /** `PARAMETER num_ctx` from the model's Modelfile (the `parameters` text); null when it sets none. */
  modelfile: number | null
  /** Whether `capabilities` lists `vision`; absent when the server lists no capabilities (older Ollama). */
  vision?: boolean
}

function positiveInt(value: unknown): number | null {
  return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : null
}

/** Reads the facts from an `/api/show` answer; tolerant of missing fields (older servers, odd models). */
export function parseOllamaShow(body: unknown): OllamaModelFacts {
  const show = (body ?? {}) as {
    model_info?: Record<string, unknown>
    parameters?: unknown
    capabilities?: unknown
  }
  const info = show.model_info ?? {}
  const arch = info['general.architecture']
  let trained = typeof arch === 'string' ? positiveInt(info[`${arch}.context_length`]) : null
  if (trained === null) {
    // Some models name the key after a different architecture string; any `*.context_length` is the same fact.
    const key = Object.keys(info).find((k) => k.endsWith('.context_length'))
    trained = key ? positiveInt(info[key]) : null
  }
  let modelfile: number | null = null
  if (typeof show.parameters === 'string') {
    const match = /^\s*num_ctx\s+(\d+)\s*$/m.exec(show.parameters)
    if (match) modelfile = positiveInt(Number(match[1]))
  }
  const caps = Array.isArray(show.capabilities) ? show.capabilities : null
  return { trained, modelfile, ...(caps ? { vision: caps.includes('vision') } : {}) }
}

export type OllamaWindowLimit = 'trained' | 'modelfile' | 'user-max' | 'default' | 'unknown'

export interface OllamaWindow {
  /** The num_ctx to send, and the window the loop budgets. */
  tokens: number
  /** What decided it, so advice can say what to change. */
  limitedBy: OllamaWindowLimit
  facts: OllamaModelFacts | null
}

/**
 * The num_ctx for a model: the Modelfile's choice if it has one, else the trained window up to
 * OLLAMA_DEFAULT_NUM_CTX; never above the trained window (Ollama caps there itself, so more would be a budget the
 * server does not run) nor above the user's maximum. Unknown facts (the server did not answer) give the smaller of
 * the default and the user's maximum, as the error from the chat call itself will say what is wrong.
 */
export function ollamaWindow(facts: OllamaModelFacts | null, userMax: number | null): OllamaWindow {
  const candidates: { tokens: number; limitedBy: OllamaWindowLimit }[] = []
  if (!facts) candidates.push({ tokens: OLLAMA_DEFAULT_NUM_CTX, limitedBy: 'unknown' })
  else if (facts.modelfile !== null) candidates.push({ tokens: facts.modelfile, limitedBy: 'modelfile' })
  else if (userMax === null) candidates.push({ tokens: OLLAMA_DEFAULT_NUM_CTX, limitedBy: 'default' })
  if (facts?.trained != null) candidates.push({ tokens: facts.trained, limitedBy: 'trained' })
  if (userMax !== null) candidates.push({ tokens: userMax, limitedBy: 'user-max' })
  // The first of equal sizes wins, so a Modelfile that asks for exactly the trained window says "modelfile".
  const best = candidates.reduce((a, b) => (b.tokens < a.tokens ? b : a))
  return { ...best, facts }
}

const showCache = new Map<string, Promise<OllamaModelFacts>>()

/**
 * The model's facts from the server, asked once per server and model for the life of the process (every call
 * needs them; a model's Modelfile does not change under a running task). A failed answer is not remembered.
 */
export function ollamaModelFacts(
  baseUrl: string | null | undefined,
  model: string,
): Promise<OllamaModelFacts> {
  const origin = ollamaOrigin(baseUrl)
  const key = `${origin} ${model}`
  let pending = showCache.get(key)
  if (!pending) {
    // A failed lookup is not kept: the next call asks again (the caller hears the failure).
    pending = fetchShow(origin, model).catch((err: unknown) => {
      showCache.delete(key)
      throw err
    })
    showCache.set(key, pending)
  }
  return pending
}

async function fetchShow(origin: string, model: string): Promise<OllamaModelFacts> {
  const res = await fetch(`${origin}/api/show`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model }),
    signal: timeoutSignal(10_000),
  })
  if (!res.ok) {
    const text = await res.text().catch((err: unknown) => `(its body could not be read: ${String(err)})`)
    throw new Error(
      `Ollama at ${origin} answered ${res.status} to /api/show for ${model}: ${text.slice(0, 200)}`,
    )
  }
  return parseOllamaShow(await res.json())
}

/** For tests: forget what the servers said. */
export function clearOllamaFacts(): void {
  showCache.clear()
}

/** The window for an Ollama model; never throws (an unreachable server gets the cautious default). */
export async function resolveOllamaWindow(
  baseUrl: string | null | undefined,
  model: string,
  userMax: number | null,
): Promise<OllamaWindow & { error?: string }> {
  try {
    return ollamaWindow(await ollamaModelFacts(baseUrl, model), userMax)
  } catch (err) {
    return { ...ollamaWindow(null, userMax), error: err instanceof Error ? err.message : String(err) }
  }
}
