// One field of `.ralph/config.json` read against its schema ("lanes", "workers" …): a missing file or field means
// the schema's defaults; a field that is there but wrong is an error naming it and saying what is expected, since a
// setting silently ignored would fail far from its cause.
import { readFile } from 'node:fs/promises'
import type { z } from 'zod'
import { AppError } from '../../shared/errors'
import { ifMissing } from './failures'
import { ralphPath } from './ralphFiles'

export interface ConfigField<T> {
  /** The key in config.json. */
  key: string
  schema: z.ZodType<T>
  /** What the value should look like, for the error (`Expected "lanes": { … }.`). */
  expected: string
}

/** The field of config.json's text (pure; `file` names it in errors). Absent: the schema's defaults. */
export function parseConfigField<T>(raw: string, file: string, field: ConfigField<T>): T {
  let json: unknown
  try {
    json = JSON.parse(raw.trim() === '' ? '{}' : raw)
  } catch (err) {
    if (!(err instanceof SyntaxError)) throw err
    throw new AppError('config', `${file} is not valid JSON (${err.message}). Fix it, then try again.`)
  }
  const value = (json as Record<string, unknown> | null)?.[field.key]
  const parsed = field.schema.safeParse(value === undefined ? {} : value)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    const where = issue?.path.length ? `${field.key}.${issue.path.join('.')}` : field.key
    throw new AppError(
      'config',
      `"${where}" in ${file} is not valid (${issue?.message ?? 'unknown'}). ${field.expected}`,
    )
  }
  return parsed.data
}

/** The project's field; a missing file or field means the defaults. */
export async function readConfigField<T>(projectDir: string, field: ConfigField<T>): Promise<T> {
  const file = ralphPath(projectDir, 'config')
  const raw = await readFile(file, 'utf8').catch(ifMissing(''))
  return parseConfigField(raw, file, field)
}
