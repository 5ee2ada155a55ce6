// The per-project sandbox settings in `.ralph/config.json` ("sandbox": { … }). The file is read-only inside the
// sandbox, so the model cannot change them; the user edits them.
import { readFile } from 'node:fs/promises'
import { z } from 'zod'
import { defaultLoopConfig, ralphPath } from '../workspace/ralphFiles'

/** A portable environment variable name: what `passEnv` may list. */
const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name')

export const sandboxConfigSchema = z.object({
  /** false cuts the command off the network (a new, empty network namespace). */
  network: z.boolean().default(defaultLoopConfig.sandbox.network),
  /**
   * Variables of the user's environment that the project's commands need (DATABASE_URL for the tests, say).
   * Everything else is left out: the sandbox builds its environment from an allowlist.
   */
  passEnv: z.array(envName).max(200).default([]),
})
export type SandboxConfig = z.infer<typeof sandboxConfigSchema>

export const defaultSandboxConfig: SandboxConfig = defaultLoopConfig.sandbox

/**
 * The project's sandbox settings. A missing file or field means the defaults; a field that is there but
 * broken fails closed (no network, nothing passed) rather than silently opening up.
 */
export async function readSandboxConfig(projectDir: string): Promise<SandboxConfig> {
  const raw = await readFile(ralphPath(projectDir, 'config'), 'utf8').catch(() => null)
  if (raw === null || raw.trim() === '') return defaultSandboxConfig
  let json: unknown
  try {
    json = JSON.parse(raw)
  } catch {
    return { network: false, passEnv: [] }
  }
  const field = (json as { sandbox?: unknown } | null)?.sandbox
  if (field === undefined) return defaultSandboxConfig
  const parsed = sandboxConfigSchema.safeParse(field)
  return parsed.success ? parsed.data : { network: false, passEnv: [] }
}
