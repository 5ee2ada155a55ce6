// What a sandboxed command must not see: the app data folder (database, stored API keys) and the user's
// credentials and agent sockets (DESIGN.md §14).
import { homedir } from 'node:os'
import { join } from 'node:path'
import { realpath, stat } from 'node:fs/promises'
import {
  HOME_CREDENTIAL_STORES,
  TOKEN_FILES,
  resolveAppDataDir,
  type Logger,
  unlessMissing,
} from '../workspace'
import type { HiddenPath } from './policy'

/** Credential files and folders under the user's home, across the common tools, and registry token files. */
export const HOME_SECRETS: readonly string[] = [...HOME_CREDENTIAL_STORES, ...TOKEN_FILES]

/**
 * System files that hold secrets a root-run command could read (cap-drop ALL leaves file ownership: root owns
 * /etc/shadow), and container secrets.
 */
const SYSTEM_SECRETS: readonly string[] = ['/etc/shadow', '/etc/gshadow', '/etc/ssh', '/run/secrets']

/** Sockets that hand out more power than the sandbox has: the Docker daemon, ssh-agent and D-Bus sessions. */
function runtimeSockets(env: NodeJS.ProcessEnv): string[] {
  const uid = process.getuid?.()
  return [
    env.XDG_RUNTIME_DIR ?? (uid === undefined ? '' : `/run/user/${uid}`),
    '/run/docker.sock',
    '/var/run/docker.sock',
  ].filter((p) => p !== '')
}

/**
 * What to cover for `path`, if it exists: its real path (through a symlink the target is what must be covered)
 * and what it really is (a symlink named .ssh may point at a folder or a file).
 */
export async function existingHiddenPath(path: string, log: Logger): Promise<HiddenPath | null> {
  const real = await realpath(path).catch(
    unlessMissing(log, `sandbox: could not resolve ${path} to hide it`, null),
  )
  const st =
    real === null
      ? null
      : await stat(real).catch(unlessMissing(log, `sandbox: could not examine ${real}`, null))
  return real === null || st === null ? null : { path: real, kind: st.isDirectory() ? 'dir' : 'file' }
}

/**
 * The paths to hide, as real paths that exist now. `env` is the environment the caller passed (its RALPH_HOME);
 * the harness's own app data folder is hidden too in case the two differ.
 */
export async function hiddenPaths(env: NodeJS.ProcessEnv, log: Logger): Promise<HiddenPath[]> {
  const home = homedir()
  const candidates = [
    resolveAppDataDir({ env, platform: process.platform, home }),
    resolveAppDataDir({ env: process.env, platform: process.platform, home }),
    ...HOME_SECRETS.map((rel) => join(home, rel)),
    ...runtimeSockets(env),
    ...(process.platform === 'linux' ? SYSTEM_SECRETS : []),
  ]
  const found = await Promise.all(candidates.map((c) => existingHiddenPath(c, log)))
  const seen = new Set<string>()
  return found.filter((h): h is HiddenPath => {
    if (h === null || seen.has(h.path)) return false
    seen.add(h.path)
    return true
  })
}
