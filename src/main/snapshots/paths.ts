import { isAbsolute } from 'node:path'
import { AppError } from '../../shared/errors'
import { isAlwaysExcluded } from './exclusions'

/**
 * Normalises a project-relative path given by a caller (CLI, API, the model) to git's form, refusing
 * absolute paths, escapes and anything inside a `.git` or the snapshot store.
 */
export function normaliseProjectPath(input: string): string {
  const raw = input.replace(/\\/g, '/')
  if (
    raw === '' ||
    isAbsolute(input) ||
    raw.startsWith('/') ||
    /^[A-Za-z]:/.test(raw) ||
    raw.includes('\0')
  ) {
    throw new AppError('invalid-input', `"${input}" is not a path inside the project (use a relative path).`)
  }
  const parts: string[] = []
  for (const part of raw.split('/')) {
    if (part === '' || part === '.') continue
    if (part === '..') {
      if (parts.length === 0) {
        throw new AppError('invalid-input', `"${input}" points outside the project.`)
      }
      parts.pop()
      continue
    }
    parts.push(part)
  }
  const rel = parts.join('/')
  if (rel === '') throw new AppError('invalid-input', `"${input}" is the project folder itself, not a file.`)
  if (isAlwaysExcluded(rel)) {
    throw new AppError(
      'invalid-input',
      `"${input}" is inside a .git folder or the snapshot store; snapshots never hold it.`,
    )
  }
  return rel
}
