// The user's permission to run the model's commands without a sandbox, per project, where this machine has
// none (Windows, or Linux without a working bubblewrap). Kept in the app data folder, which sandboxed commands
// cannot see and which no project file can reach: only the user grants it (DESIGN.md §14).
import { readFile, realpath } from 'node:fs/promises'
import { join } from 'node:path'
import { z } from 'zod'
import { writeFileAtomic, resolveAppDataDir, ifMissing } from '../workspace'

const FILE = 'sandbox-permissions.json'

const permissionsSchema = z.object({
  /** Project root (real path) → when the user allowed unsandboxed commands (ISO time). */
  unsandboxed: z.record(z.string(), z.string()).default({}),
})
type Permissions = z.infer<typeof permissionsSchema>

export function permissionsFile(appDataDir: string = resolveAppDataDir()): string {
  return join(appDataDir, FILE)
}

async function load(appDataDir: string): Promise<Permissions> {
  const raw = await readFile(permissionsFile(appDataDir), 'utf8').catch(ifMissing(null))
  if (raw === null) return { unsandboxed: {} }
  try {
    return permissionsSchema.parse(JSON.parse(raw))
  } catch (err) {
    // A damaged file grants nothing.
    if (!(err instanceof SyntaxError || err instanceof z.ZodError)) throw err
    return { unsandboxed: {} }
  }
}

/** Permissions are keyed by the project's real path, however the caller spells it. */
const key = (projectDir: string): Promise<string> => realpath(projectDir).catch(ifMissing(projectDir))

async function save(appDataDir: string, p: Permissions): Promise<void> {
  await writeFileAtomic(permissionsFile(appDataDir), JSON.stringify(p, null, 2) + '\n', 0o600)
}

export async function unsandboxedAllowed(projectDir: string, appDataDir?: string): Promise<boolean> {
  const p = await load(appDataDir ?? resolveAppDataDir())
  return Object.hasOwn(p.unsandboxed, await key(projectDir))
}

/**
 * Lets the model's commands run unconfined in this project. For the CLI and the
 * UI to call after the user agreed; nothing the model does reaches it.
 */
export async function allowUnsandboxed(
  projectDir: string,
  appDataDir?: string,
  now = new Date(),
): Promise<void> {
  const dir = appDataDir ?? resolveAppDataDir()
  const p = await load(dir)
  p.unsandboxed[await key(projectDir)] = now.toISOString()
  await save(dir, p)
}

export async function revokeUnsandboxed(projectDir: string, appDataDir?: string): Promise<void> {
  const dir = appDataDir ?? resolveAppDataDir()
  const p = await load(dir)
  const k = await key(projectDir)
  if (!Object.hasOwn(p.unsandboxed, k)) return
  delete p.unsandboxed[k]
  await save(dir, p)
}
