// Which agent CLIs this machine has: each one looked up on PATH and asked its version. Nothing is installed or
// logged in here; the user's own install is what runs (their terms require it).
import { execFile } from 'node:child_process'
import { access, constants, stat } from 'node:fs/promises'
import { homedir } from 'node:os'
import { delimiter, isAbsolute, join } from 'node:path'
import { AppError } from '../../shared/errors'
import { ENGINE_CLIS, versionBelow, type EngineCli } from './catalog'
import { isMissing } from '../workspace'
import { readLocated, writeLocated } from './located'
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

/** The folders a program is looked for in: the PATH of `env`, then the installers' usual folders. */
export function searchDirs(env: NodeJS.ProcessEnv): string[] {
  const dirs = [...(env.PATH ?? '').split(delimiter).filter(Boolean), ...installDirs(env.HOME ?? homedir())]
  return [...new Set(dirs)]
}

const executable = (file: string) =>
  access(file, constants.X_OK).then(
    () => true,
    () => false, // not there or not runnable: the caller looks elsewhere or says so
  )

/** The first executable `name` on the PATH of `env`, then in the installers' usual folders, or null. */
export async function findOnPath(name: string, env: NodeJS.ProcessEnv): Promise<string | null> {
  for (const dir of searchDirs(env)) {
    const file = join(dir, name)
    if (await executable(file)) return file
  }
  return null
}

/** The engine's program: the one the user located (when it is still there), else the first on PATH. */
async function findEngine(cli: EngineCli, env: NodeJS.ProcessEnv): Promise<string | null> {
  const located = (await readLocated(env))[cli.id]
  if (located && (await executable(located))) return located
  return findOnPath(cli.binary, env)
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
  const binary = await findEngine(cli, env)
  if (!binary)
    throw new AppError(
      'config',
      `${cli.label} is not installed (no \`${cli.binary}\` on PATH). ${cli.installHint} Or point at it: Settings → Engine → Locate….`,
    )
  return binary
}

/** One engine's install: found, its version, and what to do when it is missing, broken or too old. */
export async function detectEngine(cli: EngineCli, env: NodeJS.ProcessEnv): Promise<EngineInstall> {
  const base = { id: cli.id, label: cli.label }
  const located = (await readLocated(env))[cli.id] ?? null
  const path = await findEngine(cli, env)
  if (!path)
    return {
      ...base,
      installed: false,
      path: null,
      version: null,
      supported: false,
      hint: located
        ? `The program located for it, ${located}, is gone or no longer runnable. Locate it again, or: ${cli.installHint}`
        : cli.installHint,
      searched: searchDirs(env),
      located,
    }
  return { ...(await versionOf(cli, path, env)), located }
}

/** Whether the program at `path` is the engine Ralph can drive: its version read and recent enough. */
async function versionOf(cli: EngineCli, path: string, env: NodeJS.ProcessEnv): Promise<EngineInstall> {
  const base = { id: cli.id, label: cli.label }
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

/**
 * Locate…: the user's program for an engine, checked (`--version`, the oldest version Ralph drives) before it is
 * stored, so detection and every task use it from now on; null forgets it (PATH is searched again). Bad input is
 * refused with what was wrong and what to do; nothing is stored then.
 */
export async function locateEngine(
  id: AgentEngineId,
  path: string | null,
  env: NodeJS.ProcessEnv,
): Promise<EngineInstall> {
  const cli = ENGINE_CLIS[id]
  if (path === null) {
    await writeLocated(env, id, null)
    return detectEngine(cli, env)
  }
  const file = path.trim()
  if (!isAbsolute(file))
    throw new AppError(
      'invalid-input',
      `Give the full path of the ${cli.label} program (it starts with /), e.g. /opt/tools/${cli.binary}.`,
    )
  const info = await stat(file).catch((err: unknown) => {
    if (isMissing(err)) throw new AppError('invalid-input', `There is no file at ${file}.`)
    throw err
  })
  if (info.isDirectory())
    throw new AppError(
      'invalid-input',
      `${file} is a folder: give the program inside it, e.g. ${join(file, cli.binary)}.`,
    )
  if (!(await executable(file)))
    throw new AppError(
      'invalid-input',
      `${file} is not executable: run \`chmod +x ${file}\`, or pick another.`,
    )
  const install = await versionOf(cli, file, env)
  if (!install.supported)
    throw new AppError(
      'invalid-input',
      install.version === null
        ? `${file} is not a working ${cli.label}: ${install.hint}`
        : `${file} is ${cli.label} ${install.version}; Ralph drives ${cli.minVersion} or later. ${cli.installHint}`,
    )
  await writeLocated(env, id, file)
  return { ...install, located: file }
}

/** Every agent engine's install, in the catalog's order. */
export function detectEngines(env: NodeJS.ProcessEnv): Promise<EngineInstall[]> {
  return Promise.all(
    (Object.keys(ENGINE_CLIS) as AgentEngineId[]).map((id) => detectEngine(ENGINE_CLIS[id], env)),
  )
}
