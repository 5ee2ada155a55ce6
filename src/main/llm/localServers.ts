import type { LocalServer } from '../../shared/settings'

export interface LocalCandidate {
  name: string
  baseUrl: string
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
  }
  return [
    { name: 'Ollama', baseUrl: 'http://127.0.0.1:11434/v1' },
    { name: 'LM Studio', baseUrl: 'http://127.0.0.1:1234/v1' },
  ]
}

/** Asks each candidate for its models (OpenAI-compatible GET /models); silent about servers that are absent. */
export async function detectLocalServers(
  candidates: LocalCandidate[],
  timeoutMs = 800,
): Promise<LocalServer[]> {
  const found = await Promise.all(
    candidates.map(async (candidate): Promise<LocalServer | null> => {
      try {
        const res = await fetch(`${candidate.baseUrl.replace(/\/$/, '')}/models`, {
          signal: AbortSignal.timeout(timeoutMs),
        })
        if (!res.ok) return null
        const body = (await res.json()) as { data?: { id?: unknown }[] }
        const models = (body.data ?? []).map((m) => m.id).filter((id): id is string => typeof id === 'string')
        return { name: candidate.name, baseUrl: candidate.baseUrl, models }
      } catch {
        return null
      }
    }),
  )
  return found.filter((s): s is LocalServer => s !== null)
}
