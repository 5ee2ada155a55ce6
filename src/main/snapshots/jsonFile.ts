import { readFileSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { parseJsonOr } from '../../shared/json'
import { ifUnreadable, isUnreadable } from '../workspace'

// The store's small JSON files (journals, notices, caches) are written atomically by us; one that is missing,
// unreadable, torn or edited by hand simply holds nothing.

/** The object (or array) a JSON text holds; null when it is not JSON or holds no object. */
export function jsonObject<T>(text: string): Partial<T> | null {
  const parsed = parseJsonOr(text, null)
  return typeof parsed === 'object' && parsed !== null ? (parsed as Partial<T>) : null
}

/** A small JSON file's object; null when it is missing or unreadable (see `jsonObject`). */
export async function readJsonObject<T>(file: string): Promise<Partial<T> | null> {
  const text = await readFile(file, 'utf8').catch(ifUnreadable(null))
  return text === null ? null : jsonObject<T>(text)
}

/** `readJsonObject`, synchronously. */
export function readJsonObjectSync<T>(file: string): Partial<T> | null {
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (err) {
    if (isUnreadable(err)) return null
    throw err
  }
  return jsonObject<T>(text)
}
