// Everything a command needs before it starts: which sandbox, the project's policy, the scratch home, and the
// program line that runs the command inside (DESIGN.md §14).
import { lstat, readdir, realpath, stat } from 'node:fs/promises'
import { homedir } from 'node:os'
import { join } from 'node:path'
import { resolveAppDataDir, fallbackTo, ifMissing, type Logger, ralphDir as ralphDirOf } from '../workspace'
import { appInstallPaths, installBinds } from './appInstall'
import { bwrapArgs, limitsPrologue } from './bwrap'
import { readSandboxConfig, type SandboxConfig, type SandboxLimits } from './config'
import { sandboxSupport, type SandboxKind, type SandboxSupport } from './detect'
import { hiddenPaths } from './hidden'
import { scratchHome } from './home'
import { allowedHomeDirs, homeRoots } from './homeAccess'
import { findProjectSecrets } from './projectSecrets'
import { unsandboxedAllowed } from './permissions'
import type { RalphStage, SandboxPath, SandboxPolicy } from './policy'
import { seatbeltProfile } from './seatbelt'

export interface SandboxRequest {
  /** The project root the command runs in. */
  projectDir: string
  /** The caller's environment: its RALPH_HOME and the values of the project's passEnv names. */
  env: NodeJS.ProcessEnv
  /** `.ralph/` files (project-relative) the model may write; every other harness file is read-only. */
  writableRalphFiles: readonly string[]
  /** Tests only: stands in for this machine's probed sandbox. */
  support?: SandboxSupport
  /**
   * HOME inside instead of the project's scratch home (an engine session's private folder, deleted after it: the
   * copies of the engine's login must not stay where later commands would read them). A real path.
   */
  home?: string
  /** More folders the process may read although they sit in a hidden home folder (an engine's install). */
  readablePaths?: readonly string[]
  /** An agent engine's writable copy of `.ralph/` (bubblewrap only; see SandboxPolicy.ralphStage). */
  ralphStage?: RalphStage
  /** Where failures survived while preparing are recorded (the core's log). */
  logger: Logger
}

/** The program, arguments and environment that run one shell command in the sandbox. */
export interface Launch {
  file: string
  args: string[]
  env: NodeJS.ProcessEnv
}

export type PreparedSandbox =
  | {
      ok: true
      kind: SandboxKind
      /** Real path of the project root. */
      projectDir: string
      /** The scratch folder that is HOME for the command. */
      home: string
      /** Names of the user's variables the project passes through (`.ralph/config.json` sandbox.passEnv). */
      passEnv: string[]
      /** The command's limits; under bubblewrap runCommand.ts watches processes and memory against them. */
      limits: SandboxLimits
      wrap(command: string, env: NodeJS.ProcessEnv): Launch
    }
  | { ok: false; message: string }

const SHELL = '/bin/sh'

/** `.ralph/` and `.git` where they exist. A symlinked `.ralph` is refused: its target would be bound instead. */
async function readOnlyPaths(projectDir: string): Promise<SandboxPath[]> {
  const paths: SandboxPath[] = []
  const ralph = ralphDirOf(projectDir)
  const st = await lstat(ralph).catch(ifMissing(null))
  if (st !== null && !st.isDirectory()) {
    throw new Error(`${ralph} is not a folder (a symlink or a file); the harness owns it`)
  }
  if (st !== null) paths.push({ path: ralph, kind: 'dir' })
  // A .git file (worktree, submodule) points elsewhere, outside the project and so read-only already.
  const git = join(projectDir, '.git')
  const gst = await lstat(git).catch(ifMissing(null))
  if (gst?.isDirectory() || gst?.isFile()) paths.push({ path: git, kind: gst.isDirectory() ? 'dir' : 'file' })
  return paths
}

async function writableFiles(projectDir: string, rels: readonly string[]): Promise<string[]> {
  const files = await Promise.all(
    rels.map(async (rel) => {
      const file = join(projectDir, rel)
      // A symlink would reopen its target, wherever that is, for writing.
      const st = await lstat(file).catch(ifMissing(null))
      return st?.isFile() ? file : null
    }),
  )
  return files.filter((f): f is string => f !== null)
}

const exists = (p: string) => stat(p).then(() => true, ifMissing(false))

/** The snapshot store: the model has the snapshot tool; `git --git-dir` on the store would read every version. */
async function snapshotStore(projectDir: string): Promise<SandboxPath[]> {
  const real = await realpath(join(ralphDirOf(projectDir), 'snapshots.git')).catch(ifMissing(null))
  return real === null ? [] : [{ path: real, kind: 'dir' }]
}

async function policyFor(
  req: SandboxRequest,
  projectDir: string,
  home: string,
  config: SandboxConfig,
): Promise<SandboxPolicy> {
  const userHome = homedir()
  const secrets = await findProjectSecrets(projectDir, req.logger)
  const roots = homeRoots(userHome)
  const existingRoots = (await Promise.all(roots.map(async (r) => ((await exists(r)) ? r : null)))).filter(
    (r): r is string => r !== null,
  )
  return {
    projectDir,
    readOnly: await readOnlyPaths(projectDir),
    writable: await writableFiles(projectDir, req.writableRalphFiles),
    hidden: [
      ...(await hiddenPaths(req.env, req.logger)),
      ...(await snapshotStore(projectDir)),
      ...secrets.hidden,
      ...(config.allowEnvFiles ? [] : secrets.envFiles),
    ],
    hiddenRoots: existingRoots,
    appInstall: installBinds(await appInstallPaths(req.logger), ['/tmp', ...existingRoots]),
    homeAllowed: [
      ...(await allowedHomeDirs(userHome, config.homeAllow, req.logger)),
      ...(req.readablePaths ?? []),
    ],
    home,
    network: config.network,
    limits: config.limits,
    ...(req.ralphStage ? { ralphStage: req.ralphStage } : {}),
  }
}

/** Processes of this (non-root) user now: RLIMIT_NPROC counts them all, so the limit goes on top. */
async function userProcessCount(log: Logger): Promise<number | null> {
  const uid = process.getuid?.()
  if (uid === undefined || uid === 0 || process.platform !== 'linux') return null
  const pids = (
    await readdir('/proc').catch(fallbackTo(log, 'sandbox: /proc could not be listed', []))
  ).filter((p) => /^\d+$/.test(p))
  // A process that ended since the listing is no one's.
  const owners = await Promise.all(pids.map((p) => stat(`/proc/${p}`).then((s) => s.uid, ifMissing(-1))))
  return owners.filter((o) => o === uid).length
}

export function notSandboxedMessage(reason: string): string {
  return (
    `Not run: commands are not sandboxed on this machine (${reason}), and the user has not allowed ` +
    'unsandboxed commands for this project. Install bubblewrap (Linux: apt-get install bubblewrap), or ask ' +
    'the user to allow unsandboxed commands for this project (ralph sandbox allow --project DIR). Until then ' +
    'use the file tools (read_file, write_file, edit_file, grep, list_files).'
  )
}

export async function prepareSandbox(req: SandboxRequest): Promise<PreparedSandbox> {
  try {
    const projectDir = await realpath(req.projectDir)
    const support = req.support ?? (await sandboxSupport())
    const config = await readSandboxConfig(projectDir)
    const home = req.home !== undefined ? await realpath(req.home) : await scratchHome(projectDir)
    const base = {
      ok: true as const,
      kind: support.kind,
      projectDir,
      home,
      passEnv: config.passEnv,
      limits: config.limits,
    }

    if (support.kind === 'none') {
      const appDataDir = resolveAppDataDir({ env: req.env, platform: process.platform, home: homedir() })
      if (!(await unsandboxedAllowed(projectDir, appDataDir))) {
        return { ok: false, message: notSandboxedMessage(support.reason ?? 'no sandbox') }
      }
      return { ...base, wrap: (command, env) => ({ file: SHELL, args: ['-c', command], env }) }
    }

    const policy = { ...(await policyFor(req, projectDir, home, config)), sizedTmpfs: support.sizedTmpfs }
    const binary = support.binary!
    const userProcesses = await userProcessCount(req.logger)
    // The limits are set by a first shell, which then becomes the command's own shell ("$1": no quoting).
    const limited = (command: string) => [
      SHELL,
      '-c',
      `${limitsPrologue(config.limits, userProcesses)}; exec ${SHELL} -c "$1"`,
      'sh',
      command,
    ]
    if (support.kind === 'bubblewrap') {
      return {
        ...base,
        // /tmp is a fresh tmpfs inside: a TMPDIR of the host would not exist there.
        wrap: (command, env) => ({
          file: binary,
          args: [...bwrapArgs(policy), '--', ...limited(command)],
          env: { ...env, TMPDIR: '/tmp' },
        }),
      }
    }
    const profile = seatbeltProfile(policy)
    return {
      ...base,
      wrap: (command, env) => ({ file: binary, args: ['-p', profile, ...limited(command)], env }),
    }
  } catch (err) {
    return { ok: false, message: `Not run: the sandbox could not be prepared: ${(err as Error).message}` }
  }
}
