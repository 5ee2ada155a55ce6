import type { z } from 'zod'

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
  // the dashed form is tried first.
  const spelled = ids.map((id) => (id.startsWith('claude') ? id.replace(/(\d)\.(\d)/g, '$1-$2') : id))
  return [...new Set(spelled.filter(Boolean))]
}

/** The key of a table for an id: exact, then the longest key it starts with (dated ids find their family). */
export function catalogKey(id: string, keys: Iterable<string>): string | null {
  let best: string | null = null
  for (const key of keys) {
    if (key === id) return key
    if (id.startsWith(key) && (best === null || key.length > best.length)) best = key
  }
  return best
}
