// The user's home inside the sandbox: invisible, but for the toolchain folders commands need to find their
// compilers and package managers (read-only), plus what the project adds (`.ralph/config.json`
// sandbox.homeAllow). Other users' homes are invisible too. HOME itself is a scratch folder (home.ts).
import { realpath, stat } from 'node:fs/promises'
import { join, relative } from 'node:path'
import { type Logger, ifMissing, unlessMissing } from '../workspace'
import { homeAllowProblem } from './config'
import { isWithin } from './policy'

/**
 * Where version managers and toolchains install (relative to home). Read-only inside: a command can run
 * `node`, `cargo` or `python` from them but not change them. None of them holds credentials
 * (`.cargo/credentials` is why only `.cargo/bin` is listed).
 */
export const TOOLCHAIN_HOME_DIRS: readonly string[] = [
  '.nvm',
  '.volta',
  '.fnm',
  '.local/share/fnm',
  '.cargo/bin',
  '.rustup',
  '.pyenv',
  '.asdf',
  '.local/bin',
  // What `pip install --user` puts beside the scripts in .local/bin.
  '.local/lib',
  '.local/share/pnpm',
  '.sdkman',
  'go/bin',
  '.bun',
  '.deno',
]

/** Folders that hold every user's home: replaced by an empty folder inside the sandbox. */
export function homeRoots(home: string, platform: NodeJS.Platform = process.platform): string[] {
  const roots = platform === 'darwin' ? ['/Users', '/var/root', '/private/var/root'] : ['/home', '/root']
  // A home that holds /tmp (HOME=/ or /tmp in some containers) is left alone: the sandbox's /tmp is fresh anyway.
  if (home !== '' && !isWithin('/tmp', home) && !roots.some((r) => isWithin(home, r))) roots.push(home)
  return roots
}

/** The allowed home folders that exist, as real paths (a symlink into a credential store is not followed there). */
export async function allowedHomeDirs(
  home: string,
  extra: readonly string[],
  log: Logger,
): Promise<string[]> {
  const realHome = await realpath(home).catch(ifMissing(home))
  const found = await Promise.all(
    [...TOOLCHAIN_HOME_DIRS, ...extra].map(async (rel) => {
      // Most toolchains are not installed: a missing folder is the usual case.
      const real = await realpath(join(home, rel)).catch(
        unlessMissing(log, `sandbox: could not resolve ~/${rel}`, null),
      )
      if (real === null || real === realHome) return null
      if (isWithin(real, realHome) && homeAllowProblem(relative(realHome, real)) !== null) return null
      const st = await stat(real).catch(unlessMissing(log, `sandbox: could not examine ${real}`, null))
      return st?.isDirectory() ? real : null
    }),
  )
  return [...new Set(found.filter((p): p is string => p !== null))]
}
