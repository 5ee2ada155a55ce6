// The user's own edits of `.ralph/config.json` (the CLI and the UI; the model cannot write the file): one key
// changed, every other key kept as it was, written atomically.
import { mkdir, readFile } from 'node:fs/promises'
import { dirname } from 'node:path'
import { AppError } from '../../shared/errors'
import { writeFileAtomic } from './atomicWrite'
import { ralphPath } from './ralphFiles'

async function readConfigObject(file: string): Promise<Record<string, unknown>> {
  const raw = await readFile(file, 'utf8').catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return ''
    throw new AppError('io', `Could not read ${file}: ${err.message}`)
  })
  if (raw.trim() === '') return {}
  try {
    const parsed: unknown = JSON.parse(raw)
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
      throw new Error('not an object')
    return parsed as Record<string, unknown>
  } catch (err) {
    throw new AppError(
      'config',
      `${file} is not valid JSON (${(err as Error).message}). Fix it or delete it.`,
    )
  }
}

/**
 * Replaces `key` of the project's config with what `edit` makes of its current value (it may throw an AppError
 * to refuse, and then nothing is written). Returns the new value.
 */
export async function editProjectConfig<T>(
  projectDir: string,
  key: string,
  edit: (current: unknown, file: string) => T,
): Promise<T> {
  const file = ralphPath(projectDir, 'config')
  const json = await readConfigObject(file)
  const next = edit(json[key], file)
  json[key] = next
  await mkdir(dirname(file), { recursive: true })
  await writeFileAtomic(file, `${JSON.stringify(json, null, 2)}\n`)
  return next
}
