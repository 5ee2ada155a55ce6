import { timeoutSignal, unlessExpected, type Logger } from '../workspace'
import type { LocalServer, ProviderId } from '../../shared/settings'
import { ollamaOrigin } from './ollamaContext'

export interface LocalCandidate {
  name: string
  baseUrl: string
  /** How to talk to it: Ollama's native API (which takes num_ctx), or chat completions (the default). */
  provider?: ProviderId
}

/** A server named Ollama is used through its native API, whatever path its address was given with. */
function withProvider(candidate: LocalCandidate): LocalCandidate {
  if (candidate.provider || candidate.name.trim().toLowerCase() !== 'ollama') return candidate
  return { ...candidate, provider: 'ollama', baseUrl: ollamaOrigin(candidate.baseUrl) }
}

/** The usual ports of local model servers. RALPH_LOCAL_SERVERS ("Name=url,Name=url") replaces the list. */
export function localCandidates(env: NodeJS.ProcessEnv): LocalCandidate[] {
  const custom = env.RALPH_LOCAL_SERVERS
  if (custom !== undefined) {
    return custom
      .split(',')
      .map((entry) => entry.trim())
      .filter(Boolean)
      .map((entry) => {
        const eq = entry.indexOf('=')
        return eq > 0
          ? { name: entry.slice(0, eq), baseUrl: entry.slice(eq + 1) }
          : { name: entry, baseUrl: entry }
      })
      .map(withProvider)
  }
  return [
    { name: 'Ollama', baseUrl: 'http://127.0.0.1:11434', provider: 'ollama' },
    { name: 'LM Studio', baseUrl: 'http://127.0.0.1:1234/v1' },
  ]
}

/** Nothing listening: refused, unreachable, or silent past the timeout. */
function isAbsentServer(err: unknown): boolean {
  if (!(err instanceof Error)) return false
  return (
    err.name === 'TimeoutError' ||
    err.name === 'AbortError' ||
    (err instanceof TypeError && err.message === 'fetch failed')
  )
}

type Listing = { data?: { id?: unknown }[]; models?: { name?: unknown }[] }

/**
 * Asks each candidate for its models (Ollama: GET /api/tags; others: the OpenAI-compatible GET /models); silent
 * about servers that are absent.
 */
export async function detectLocalServers(
  candidates: LocalCandidate[],
  logger: Logger,
  timeoutMs = 800,
): Promise<LocalServer[]> {
  const found = await Promise.all(
    candidates.map(async (candidate): Promise<LocalServer | null> => {
      const native = candidate.provider === 'ollama'
      const base = candidate.baseUrl.replace(/\/$/, '')
      try {
        const res = await fetch(native ? `${base}/api/tags` : `${base}/models`, {
          signal: timeoutSignal(timeoutMs),
        })
        if (!res.ok) return null
        const body = (await res.json()) as Listing
        const ids = native ? (body.models ?? []).map((m) => m.name) : (body.data ?? []).map((m) => m.id)
        const models = ids.filter((id): id is string => typeof id === 'string')
        return {
          name: candidate.name,
          baseUrl: candidate.baseUrl,
          models,
          ...(candidate.provider ? { provider: candidate.provider } : {}),
        }
      } catch (err) {
        // Absent servers are the common case and stay quiet; one that answers with something else is recorded.
        return unlessExpected(
          logger,
          `${candidate.name} at ${base} did not list its models`,
          null,
          isAbsentServer,
        )(err)
      }
    }),
  )
  return found.filter((s): s is LocalServer => s !== null)
}
