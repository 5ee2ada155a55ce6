// The Linux sandbox: bubblewrap driven directly.
//
// Why not @anthropic-ai/sandbox-runtime (evaluated, 0.0.78–0.0.83): its Linux mode always unshares the network
// and routes traffic through host proxies bridged by socat (not installed here, and we want the network on by
// default), it needs ripgrep too, keeps one process-wide configuration (we need a policy per project and per
// call: the web host runs several projects), its newer releases require Node ≥ 22.12 (we run 20), it pins zod 3
// next to our zod 4, and it does not build the environment. Re-checked for issue 23 (Nov 2026, 0.0.83 still the
// latest on npm): it now has denyRead/allowRead lists and credential masking, which would cover the hidden home
// and credential stores, but engines is still node >= 22.12, zod ^3.25 and socat are still required, and its
// package has no resource limits (no rlimit, cgroup or process count: the fork and memory bombs of issue 23
// would still need the watchdog below). The bwrap flags we need still fit in one small function.
import type { SandboxLimits } from './config'
import type { SandboxPath, SandboxPolicy } from './policy'
import { isWithin } from './policy'

/**
 * Namespaces and hardening, shared with the probe. A new PID namespace whose init is bwrap: when the command's
 * shell exits or bwrap is killed, the kernel kills everything left inside, `setsid` daemons included.
 * --new-session stops TIOCSTI keystroke injection; --cap-drop ALL matters when the app runs as root (bwrap then
 * keeps every capability, and CAP_SYS_ADMIN could remount the read-only binds writable).
 */
export const BWRAP_NAMESPACE_FLAGS: readonly string[] = [
  '--unshare-pid',
  '--unshare-ipc',
  '--die-with-parent',
  '--new-session',
  '--cap-drop',
  'ALL',
]

const MB = 1024 * 1024

/** Covers one path: a folder with an empty read-only tmpfs, a file (or socket) with /dev/null. */
function cover(h: SandboxPath, policy: SandboxPolicy): string[] {
  return h.kind === 'dir'
    ? [...tmpfs(policy, 64 * 1024, h.path), '--remount-ro', h.path]
    : ['--ro-bind', '/dev/null', h.path]
}

function tmpfs(policy: SandboxPolicy, bytes: number, path: string): string[] {
  return policy.sizedTmpfs === false ? ['--tmpfs', path] : ['--size', String(bytes), '--tmpfs', path]
}

/** True when a path is already gone with an emptied home root and nothing bound back over it shows it. */
function alreadyGone(path: string, policy: SandboxPolicy): boolean {
  if (!policy.hiddenRoots.some((r) => isWithin(path, r))) return false
  const shown = [policy.projectDir, policy.home, ...policy.homeAllowed, ...policy.appInstall]
  return !shown.some((s) => isWithin(path, s) || isWithin(s, path))
}

/**
 * bwrap's arguments up to the command. Mounts apply in order, each over the ones before: the whole file system
 * read-only, fresh /dev, /proc and a size-limited /tmp; every home folder emptied and the toolchain folders and
 * the app's own install bound back read-only; the secrets outside the project covered; then the scratch home and the project
 * writable, `.ralph/` and `.git` read-only again on top, the secrets inside the project covered (the snapshot
 * store, credential stores, `.env` files), the three files the model writes reopened, and the emptied home
 * folders made read-only last (bwrap needed them writable to create the mount points).
 */
export function bwrapArgs(policy: SandboxPolicy): string[] {
  const args = [...BWRAP_NAMESPACE_FLAGS]
  if (!policy.network) args.push('--unshare-net')
  args.push('--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc')
  args.push(...tmpfs(policy, policy.limits.tmpMb * MB, '/tmp'))
  for (const root of policy.hiddenRoots) args.push(...tmpfs(policy, MB, root))
  for (const dir of policy.homeAllowed) args.push('--ro-bind', dir, dir)
  // After /tmp and the home folders are emptied: the app may run from either (an AppImage from /tmp/.mount_*).
  for (const path of policy.appInstall) args.push('--ro-bind', path, path)
  const inside = (h: SandboxPath) => isWithin(h.path, policy.projectDir) && h.path !== policy.projectDir
  // A hidden folder that holds the project (a lane in the app data folder) is emptied before the project is bound
  // and made read-only only after: bwrap makes the bind's mount point in it. One inside the project is covered after.
  const holding = policy.hidden.filter((h) => h.kind === 'dir' && isWithin(policy.projectDir, h.path))
  for (const h of policy.hidden) {
    if (inside(h) || alreadyGone(h.path, policy)) continue
    args.push(...(holding.includes(h) ? tmpfs(policy, 64 * 1024, h.path) : cover(h, policy)))
  }
  args.push('--bind', policy.home, policy.home)
  args.push('--bind', policy.projectDir, policy.projectDir)
  for (const p of policy.readOnly) args.push('--ro-bind', p.path, p.path)
  const stage = policy.ralphStage
  if (stage) {
    args.push('--bind', stage.stage, stage.ralphDir)
    for (const dir of stage.folders) args.push('--ro-bind', dir, dir)
  }
  for (const h of policy.hidden) if (inside(h)) args.push(...cover(h, policy))
  // A staged .ralph/ is written as a whole (and copied back file by file): binding single files would pin them.
  if (!stage) for (const file of policy.writable) args.push('--bind', file, file)
  for (const root of [...policy.hiddenRoots, ...holding.map((h) => h.path)]) args.push('--remount-ro', root)
  args.push('--chdir', policy.projectDir)
  return args
}

/**
 * The shell line that sets the command's resource limits before it runs (inherited by every process it starts).
 * RLIMIT_FSIZE stops a runaway write; RLIMIT_NPROC counts every process of the user, so it is set above what
 * the user runs already, and it is not enforced for root at all: the watchdog in runCommand.ts counts the
 * processes of the sandbox's PID namespace and its memory, and stops the command past either limit.
 */
export function limitsPrologue(limits: SandboxLimits, userProcesses: number | null): string {
  // POSIX sh counts -f in 512-byte blocks.
  const lines = [`ulimit -c 0`, `ulimit -f ${limits.fileSizeMb * 2048}`]
  if (userProcesses !== null) lines.push(`ulimit -u ${userProcesses + limits.processes} 2>/dev/null`)
  return lines.join('; ')
}
