// Which agent CLIs this machine has: each one looked up on PATH and asked its version. Nothing is installed or
// logged in here; the user's own install is what runs (their terms require it).
import { execFile } from 'node:child_process'
import { access, constants } from 'node:fs/promises'
import { homedir } from 'node:os'
import { delimiter, join } from 'node:path'
import { AppError } from '../../shared/errors'
import { ENGINE_CLIS, versionBelow, type EngineCli } from './catalog'
import type { AgentEngineId, EngineInstall } from './types'

const VERSION_TIMEOUT_MS = 15_000

/**
 * Where the CLIs' installers put them, looked at after PATH: an app started from the desktop (Finder, a launcher)
 * gets a short PATH without the user's shell profile, so `claude` in ~/.local/bin would otherwise go unseen.
 */
export function installDirs(home: string): string[] {
  return [
    join(home, '.local/bin'), // Claude Code's native installer
    join(home, '.claude/local'), // Claude Code's older local install
    join(home, '.npm-global/bin'),
    join(home, '.volta/bin'),
    join(home, '.bun/bin'),
    '/opt/homebrew/bin',
    '/usr/local/bin',
  ]
}

/** The first executable `name` on the PATH of `env`, then in the installers' usual folders, or null. */
export async function findOnPath(name: string, env: NodeJS.ProcessEnv): Promise<string | null> {
  const home = env.HOME ?? homedir()
  const dirs = [...(env.PATH ?? '').split(delimiter).filter(Boolean), ...installDirs(home)]
  for (const dir of dirs) {
    const file = join(dir, name)
    const found = await access(file, constants.X_OK).then(
      () => true,
      () => false, // not in this folder: the next one is asked
    )
    if (found) return file
  }
  return null
}

function runVersion(file: string, args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(file, args, { env, timeout: VERSION_TIMEOUT_MS, maxBuffer: 64 * 1024 }, (err, stdout, stderr) =>
      err ? reject(new Error(`${String(stderr).trim() || err.message}`)) : resolve(String(stdout)),
    )
  })
}

/** The engine's program, or the configuration error that says it is not installed and how to install it. */
export async function engineBinary(id: AgentEngineId, env: NodeJS.ProcessEnv): Promise<string> {
  const cli = ENGINE_CLIS[id]
  const binary = await findOnPath(cli.binary, env)
  if (!binary)
    throw new AppError(
      'config',
      `${cli.label} is not installed (no \`${cli.binary}\` on PATH). ${cli.installHint}`,
    )
  return binary
}

/** One engine's install: found, its version, and what to do when it is missing, broken or too old. */
export async function detectEngine(cli: EngineCli, env: NodeJS.ProcessEnv): Promise<EngineInstall> {
  const base = { id: cli.id, label: cli.label }
  const path = await findOnPath(cli.binary, env)
  if (!path)
    return { ...base, installed: false, path: null, version: null, supported: false, hint: cli.installHint }
  let version: string | null
  try {
    version = cli.parseVersion(await runVersion(path, cli.versionArgs, env))
  } catch (err) {
    const why = (err as Error).message.split('\n')[0]
    return {
      ...base,
      installed: true,
      path,
      version: null,
      supported: false,
      hint: `\`${cli.binary} ${cli.versionArgs.join(' ')}\` failed (${why}). Reinstall it: ${cli.installHint}`,
    }
  }
  if (version === null || versionBelow(version, cli.minVersion)) {
    return {
      ...base,
      installed: true,
      path,
      version,
      supported: false,
      hint: `${cli.label} ${version ?? '(unknown version)'} is older than ${cli.minVersion}, the oldest Ralph drives. Update it: ${cli.installHint}`,
    }
  }
  return { ...base, installed: true, path, version, supported: true, hint: null }
}

/** Every agent engine's install, in the catalog's order. */
export function detectEngines(env: NodeJS.ProcessEnv): Promise<EngineInstall[]> {
  return Promise.all(
    (Object.keys(ENGINE_CLIS) as AgentEngineId[]).map((id) => detectEngine(ENGINE_CLIS[id], env)),
  )
}
