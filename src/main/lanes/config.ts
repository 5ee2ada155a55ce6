// The per-project lane settings in `.ralph/config.json` ("lanes": { "parallel": N, "copy": [...], "setup": "CMD" }),
// beside "sandbox". The file is read-only inside the sandbox, so the model cannot widen what a lane copies.
import { readFile } from 'node:fs/promises'
import { z } from 'zod'
import { AppError } from '../../shared/errors'
import { ifMissing, ralphPath } from '../workspace'

/** At most this many lanes build at once (issue #38). */
export const MAX_PARALLEL = 8

/** A gitignore-style pattern naming project files to copy into each lane (".env", "config/*.local.json"). */
const copyPattern = z
  .string()
  .min(1)
  .max(500)
  .refine((s) => !s.includes('\0') && !/(^|\/)\.\.(\/|$)/.test(s), 'a pattern inside the project (no "..")')

export const lanesConfigSchema = z.object({
  parallel: z.number().int().min(1).max(MAX_PARALLEL).default(1),
  copy: z.array(copyPattern).max(200).default([]),
  setup: z.string().min(1).max(2000).optional(),
})
export type LanesConfig = z.infer<typeof lanesConfigSchema>
export const defaultLanesConfig: LanesConfig = lanesConfigSchema.parse({})

/**
 * The project's lane settings; a missing file or field means the defaults. A field that is there but broken is an
 * error naming what is wrong: a lane silently missing its `.env` would fail in ways far from the cause.
 */
export async function readLanesConfig(projectDir: string): Promise<LanesConfig> {
  const file = ralphPath(projectDir, 'config')
  const raw = await readFile(file, 'utf8').catch(ifMissing(null))
  if (raw === null || raw.trim() === '') return defaultLanesConfig
  return parseLanesConfig(raw, file)
}

/** The "lanes" field of config.json's text (pure; `file` names it in errors). */
export function parseLanesConfig(raw: string, file: string): LanesConfig {
  let json: unknown
  try {
    json = JSON.parse(raw)
  } catch (err) {
    if (!(err instanceof SyntaxError)) throw err
    throw new AppError('config', `${file} is not valid JSON (${err.message}). Fix it, then try again.`)
  }
  const field = (json as { lanes?: unknown } | null)?.lanes
  if (field === undefined) return defaultLanesConfig
  const parsed = lanesConfigSchema.safeParse(field)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    const where = issue?.path.length ? `lanes.${issue.path.join('.')}` : 'lanes'
    throw new AppError(
      'config',
      `"${where}" in ${file} is not valid (${issue?.message ?? 'unknown'}). Expected "lanes": ` +
        '{ "parallel": 1-8, "copy": [".env", …], "setup": "npm ci" }.',
    )
  }
  return parsed.data
}
