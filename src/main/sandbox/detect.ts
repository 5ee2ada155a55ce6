// Which sandbox this machine can run, found once with a cheap probe (DESIGN.md §14).
import { spawn } from 'node:child_process'
import { access, constants } from 'node:fs/promises'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import { BWRAP_NAMESPACE_FLAGS } from './bwrap'
import { defaultSandboxLimits } from './config'
import type { SandboxPolicy } from './policy'
import { seatbeltProfile } from './seatbelt'

export type SandboxKind = 'bubblewrap' | 'sandbox-exec' | 'none'

export interface SandboxSupport {
  kind: SandboxKind
  /** The program that runs it (bwrap or sandbox-exec); null for 'none'. */
  binary: string | null
  /** Why there is none, in words for the user; null when there is one. */
  reason: string | null
  /** bubblewrap ≥ 0.5 takes `--size` for a tmpfs (the /tmp limit); older ones run without that limit. */
  sizedTmpfs?: boolean
}

const PROBE_TIMEOUT_MS = 10_000
const SANDBOX_EXEC = '/usr/bin/sandbox-exec'
const PROBE_MOUNTS = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp']
const SIZED_PROBE_MOUNTS = ['--ro-bind', '/', '/', '--size', '1048576', '--tmpfs', '/tmp']

async function executable(file: string): Promise<boolean> {
  return access(file, constants.X_OK).then(
    () => true,
    () => false,
  )
}

/** Only the system's own places: a `bwrap` found through PATH (a project's bin folder, say) could be anything. */
const BWRAP_PATHS = ['/usr/bin/bwrap', '/bin/bwrap', '/usr/local/bin/bwrap']

async function findBwrap(): Promise<string | null> {
  for (const file of BWRAP_PATHS) if (await executable(file)) return file
  return null
}

/** Runs a tiny command through the sandbox: bwrap may exist yet be unusable (no user namespaces, seccomp …). */
function probe(file: string, args: string[]): Promise<string | null> {
  return new Promise((resolve) => {
    const child = spawn(file, args, { stdio: ['ignore', 'ignore', 'pipe'], env: { PATH: '/usr/bin:/bin' } })
    let err = ''
    child.stderr.on('data', (c: Buffer) => (err += c.toString('utf8')))
    const timer = setTimeout(() => child.kill('SIGKILL'), PROBE_TIMEOUT_MS)
    child.once('error', (e) => {
      clearTimeout(timer)
      resolve(e.message)
    })
    child.once('close', (code, signal) => {
      clearTimeout(timer)
      resolve(code === 0 ? null : err.trim() || `exited with ${code ?? signal}`)
    })
  })
}

function probePolicy(): SandboxPolicy {
  const dir = tmpdir()
  return {
    projectDir: dir,
    readOnly: [{ path: join(dir, '.ralph'), kind: 'dir' }],
    writable: [join(dir, '.ralph', 'status.txt')],
    hidden: [{ path: join(dir, 'hidden'), kind: 'dir' }],
    home: dir,
    network: false,
    hiddenRoots: [],
    homeAllowed: [],
    appInstall: [],
    limits: defaultSandboxLimits,
  }
}

async function detect(): Promise<SandboxSupport> {
  if (process.platform === 'linux') {
    const bwrap = await findBwrap()
    if (!bwrap) {
      return { kind: 'none', binary: null, reason: 'bubblewrap (bwrap) is not installed' }
    }
    const failure = await probe(bwrap, [...BWRAP_NAMESPACE_FLAGS, ...PROBE_MOUNTS, '--', '/bin/true'])
    if (failure) return { kind: 'none', binary: null, reason: `bubblewrap does not work here: ${failure}` }
    const sized = await probe(bwrap, [...BWRAP_NAMESPACE_FLAGS, ...SIZED_PROBE_MOUNTS, '--', '/bin/true'])
    return { kind: 'bubblewrap', binary: bwrap, reason: null, sizedTmpfs: sized === null }
  }
  if (process.platform === 'darwin') {
    if (!(await executable(SANDBOX_EXEC))) {
      return { kind: 'none', binary: null, reason: 'sandbox-exec is missing' }
    }
    // A generated profile, so a rule this macOS does not understand shows here and not on every command.
    const failure = await probe(SANDBOX_EXEC, ['-p', seatbeltProfile(probePolicy()), '/usr/bin/true'])
    if (failure) return { kind: 'none', binary: null, reason: `sandbox-exec does not work here: ${failure}` }
    return { kind: 'sandbox-exec', binary: SANDBOX_EXEC, reason: null }
  }
  return { kind: 'none', binary: null, reason: `there is no sandbox for ${process.platform} yet` }
}

let detected: Promise<SandboxSupport> | null = null

/** The sandbox in use on this machine, probed on first call and cached for the life of the process. */
export function sandboxSupport(): Promise<SandboxSupport> {
  detected ??= detect()
  return detected
}

/** For the CLI and the UI: 'bubblewrap' on Linux, 'sandbox-exec' on macOS, 'none' where commands are unconfined. */
export async function sandboxInUse(): Promise<SandboxKind> {
  return (await sandboxSupport()).kind
}
