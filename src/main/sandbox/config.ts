// The per-project sandbox settings in `.ralph/config.json` ("sandbox": { … }). The file is read-only inside the
// sandbox, so the model cannot change them; the user edits them (by hand, in Settings, or with `ralph sandbox`).
import { readFile } from 'node:fs/promises'
import { z } from 'zod'
import { AppError } from '../../shared/errors'
import {
  credentialStoreOf,
  TOKEN_FILES,
  editProjectConfig,
  defaultLoopConfig,
  ralphPath,
  ifMissing,
} from '../workspace'

/** A portable environment variable name: what `passEnv` may list. */
const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name')

/** Why a `homeAllow` entry is refused, or null: relative to home, no climbing, no credential store. */
export function homeAllowProblem(entry: string): string | null {
  if (entry.trim() === '' || entry.startsWith('/') || entry.startsWith('~') || /^[A-Za-z]:/.test(entry))
    return 'a folder relative to your home, e.g. ".nvm" or ".local/share/pnpm"'
  const parts = entry.split('/').filter((p) => p !== '' && p !== '.')
  if (parts.length === 0) return 'a folder inside your home, not the home itself'
  if (parts.includes('..')) return 'a path without ".."'
  const lower = parts.join('/').toLowerCase()
  if (credentialStoreOf(lower) !== null || TOKEN_FILES.includes(parts[parts.length - 1]!.toLowerCase()))
    return 'not a credential store'
  // A parent of a credential store (".config", say) would show it: the sandbox binds whole folders.
  if (['.config', '.local', '.local/share', 'library', '.cargo', '.docker'].includes(lower))
    return `a narrower folder than "${entry}", which holds credentials`
  return null
}

const homeEntry = z.string().superRefine((s, ctx) => {
  const problem = homeAllowProblem(s)
  if (problem) ctx.addIssue({ code: 'custom', message: `"${s}" must be ${problem}` })
})

/** Limits of one command (the whole process tree inside the sandbox). */
export const sandboxLimitsSchema = z.object({
  /** Resident memory of all the command's processes together, in MB. */
  memoryMb: z.number().int().min(64).max(1_048_576).default(4096),
  /** Processes (and threads) alive at once. */
  processes: z.number().int().min(8).max(100_000).default(512),
  /** The largest file one write may grow, in MB. */
  fileSizeMb: z.number().int().min(1).max(1_048_576).default(2048),
  /** The sandbox's own /tmp (memory-backed), in MB. */
  tmpMb: z.number().int().min(1).max(1_048_576).default(512),
})
export type SandboxLimits = z.infer<typeof sandboxLimitsSchema>
export const defaultSandboxLimits: SandboxLimits = sandboxLimitsSchema.parse({})

export const sandboxConfigSchema = z.object({
  /** false cuts the command off the network (a new, empty network namespace). */
  network: z.boolean().default(defaultLoopConfig.sandbox.network),
  /**
   * Variables of the user's environment that the project's commands need (DATABASE_URL for the tests, say).
   * Everything else is left out: the sandbox builds its environment from an allowlist.
   */
  passEnv: z.array(envName).max(200).default([]),
  /** true lets commands read the project's `.env` files (the file tools never do). Off unless the user says so. */
  allowEnvFiles: z.boolean().optional(),
  /** Folders of the user's home (relative to it) that commands may read besides the built-in toolchain list. */
  homeAllow: z.array(homeEntry).max(50).optional(),
  limits: sandboxLimitsSchema.partial().optional(),
})
type SandboxConfigInput = z.infer<typeof sandboxConfigSchema>

/** The settings with every default filled in. */
export interface SandboxConfig {
  network: boolean
  passEnv: string[]
  allowEnvFiles: boolean
  homeAllow: string[]
  limits: SandboxLimits
}

const complete = (c: SandboxConfigInput): SandboxConfig => ({
  network: c.network,
  passEnv: c.passEnv,
  allowEnvFiles: c.allowEnvFiles ?? false,
  homeAllow: c.homeAllow ?? [],
  limits: { ...defaultSandboxLimits, ...c.limits },
})

export const defaultSandboxConfig: SandboxConfig = complete(
  sandboxConfigSchema.parse(defaultLoopConfig.sandbox),
)

/** What a broken setting falls back to: nothing opened up, the default limits. */
const closed: SandboxConfig = {
  network: false,
  passEnv: [],
  allowEnvFiles: false,
  homeAllow: [],
  limits: defaultSandboxLimits,
}

/**
 * The project's sandbox settings. A missing file or field means the defaults; a field that is there but
 * broken fails closed (no network, nothing passed, no .env, no extra home folder) rather than silently opening up.
 */
export async function readSandboxConfig(projectDir: string): Promise<SandboxConfig> {
  const raw = await readFile(ralphPath(projectDir, 'config'), 'utf8').catch(ifMissing(null))
  if (raw === null || raw.trim() === '') return defaultSandboxConfig
  let json: unknown
  try {
    json = JSON.parse(raw)
  } catch (err) {
    if (!(err instanceof SyntaxError)) throw err
    return closed
  }
  const field = (json as { sandbox?: unknown } | null)?.sandbox
  if (field === undefined) return defaultSandboxConfig
  const parsed = sandboxConfigSchema.safeParse(field)
  return parsed.success ? complete(parsed.data) : closed
}

export type SandboxSettingsPatch = Partial<Pick<SandboxConfigInput, 'allowEnvFiles' | 'network'>>

/**
 * Changes sandbox settings in `.ralph/config.json`, keeping everything else in the file. For the CLI and the
 * UI (the user's own choice); the model cannot reach it (the file is read-only in the sandbox).
 */
export async function updateSandboxConfig(
  projectDir: string,
  patch: SandboxSettingsPatch,
): Promise<SandboxConfig> {
  let valid: z.infer<typeof sandboxConfigSchema> | null = null
  await editProjectConfig(projectDir, 'sandbox', (current, file) => {
    const next = { ...(typeof current === 'object' && current !== null ? current : {}), ...patch }
    const checked = sandboxConfigSchema.safeParse(next)
    if (!checked.success) {
      throw new AppError(
        'config',
        `The "sandbox" settings in ${file} are not valid (${checked.error.issues[0]?.message ?? 'unknown'}). Fix them first.`,
      )
    }
    valid = checked.data
    return next
  })
  return complete(valid!)
}
