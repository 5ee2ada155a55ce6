// Where gates read file contents from. "Before" will be the snapshot engine's `show task-N-pre PATH`; "now"
// is the working tree. Gates take two FileSources so they never depend on the snapshot module.
import { isFsError } from '../../shared/errors'
import { readFile } from 'node:fs/promises'
import { isAbsolute, relative, resolve } from 'node:path'

export interface FileSource {
  /** Text of a project-relative path, or null when the file does not exist (or is not readable). */
  read(path: string): Promise<string | null>
}

/** A file's text, or null when the file system refuses it (absent, a folder, unreadable); anything else throws. */
export async function readTextOrNull(path: string): Promise<string | null> {
  try {
    return await readFile(path, 'utf8')
  } catch (err) {
    if (isFsError(err)) return null
    throw err
  }
}

/** Resolves a project-relative path inside `root`, refusing anything that escapes it. */
export function resolveInside(root: string, path: string): string | null {
  if (isAbsolute(path)) return null
  const full = resolve(root, path)
  const rel = relative(root, full)
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) return null
  return full
}

/** Reads from a folder on disk: the project's working tree, or any extracted copy of it. */
export function workingTreeSource(root: string): FileSource {
  return {
    async read(path) {
      const full = resolveInside(root, path)
      return full ? readTextOrNull(full) : null
    },
  }
}

/** An in-memory source (tests, the editor's unsaved buffers, a plan text passed over the API). */
export function memorySource(files: Record<string, string>): FileSource {
  const map = new Map(Object.entries(files).map(([k, v]) => [normalizePath(k), v]))
  return { read: async (path) => map.get(normalizePath(path)) ?? null }
}

/** Project-relative, forward slashes, no leading "./". */
export function normalizePath(path: string): string {
  const parts: string[] = []
  for (const p of path.replace(/\\/g, '/').split('/')) {
    if (p === '' || p === '.') continue
    if (p === '..') parts.pop()
    else parts.push(p)
  }
  return parts.join('/')
}

/** Wraps a source so each path is read at most once per gate run. */
export function cachedSource(source: FileSource): FileSource {
  const cache = new Map<string, Promise<string | null>>()
  return {
    read(path) {
      const key = normalizePath(path)
      let hit = cache.get(key)
      if (!hit) {
        hit = source.read(key)
        cache.set(key, hit)
      }
      return hit
    },
  }
}
