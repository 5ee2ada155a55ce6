/**
 * The UI state that outlives a reload (theme, side panel, cost caps, build budgets) is kept in localStorage. The
 * storage can be unavailable (privacy modes, a full quota) or hold something this version cannot read: the value
 * then lives for this session only, and the console says why (the renderer has no log file).
 */

import { noteFailure } from './failures'

const warn = (what: string, key: string, err: unknown): void =>
  noteFailure(`${what} "${key}" in localStorage failed; using this session's value only.`, err)

/** The stored text under `key`, or null (nothing stored, or storage unavailable). */
export function readStored(key: string): string | null {
  try {
    return localStorage.getItem(key)
  } catch (err) {
    warn('reading', key, err)
    return null
  }
}

/** Stores `value` under `key`; when storage is unavailable the caller's state still applies for this session. */
export function writeStored(key: string, value: string): void {
  try {
    localStorage.setItem(key, value)
  } catch (err) {
    warn('writing', key, err)
  }
}

/**
 * A per-project record stored as JSON (`{ "<projectId>": value }`): each entry read with `entry` (undefined drops
 * it); an empty record when nothing is stored or the JSON cannot be read.
 */
export function readStoredByProject<T>(
  key: string,
  entry: (value: unknown) => T | undefined,
): Record<number, T> {
  const text = readStored(key)
  if (text === null) return {}
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch (err) {
    warn('parsing', key, err)
    return {}
  }
  if (typeof parsed !== 'object' || parsed === null) return {}
  const out: Record<number, T> = {}
  for (const [id, value] of Object.entries(parsed as Record<string, unknown>)) {
    const read = entry(value)
    if (read !== undefined) out[Number(id)] = read
  }
  return out
}

/** Stores a per-project record as JSON. */
export const writeStoredByProject = <T>(key: string, record: Record<number, T>): void =>
  writeStored(key, JSON.stringify(record))
