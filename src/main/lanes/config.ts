// The per-project lane settings in `.ralph/config.json` ("lanes": { "parallel": N, "copy": [...], "setup": "CMD" }),
// beside "sandbox". The file is read-only inside the sandbox, so the model cannot widen what a lane copies.
import { z } from 'zod'
import { parseConfigField, readConfigField, type ConfigField } from '../workspace'

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
 * A field that is there but broken is an error naming what is wrong: a lane silently missing its `.env` would fail
 * in ways far from the cause.
 */
const lanesField: ConfigField<LanesConfig> = {
  key: 'lanes',
  schema: lanesConfigSchema,
  expected: 'Expected "lanes": { "parallel": 1-8, "copy": [".env", …], "setup": "npm ci" }.',
}

/** The project's lane settings; a missing file or field means the defaults. */
export function readLanesConfig(projectDir: string): Promise<LanesConfig> {
  return readConfigField(projectDir, lanesField)
}

/** The "lanes" field of config.json's text (pure; `file` names it in errors). */
export function parseLanesConfig(raw: string, file: string): LanesConfig {
  return parseConfigField(raw, file, lanesField)
}
