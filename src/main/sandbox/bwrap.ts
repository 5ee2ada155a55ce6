// The Linux sandbox: bubblewrap driven directly.
//
// Why not @anthropic-ai/sandbox-runtime (evaluated, 0.0.78–0.0.83): its Linux mode always unshares the network
// and routes traffic through host proxies bridged by socat (not installed here, and we want the network on by
// default), it needs ripgrep too, keeps one process-wide configuration (we need a policy per project and per
// call: the web host runs several projects), its newer releases require Node ≥ 22.12 (we run 20), it pins zod 3
// next to our zod 4, and it does not build the environment. The bwrap flags we need fit in one small function.
import type { SandboxPolicy } from './policy'
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

function hide(policy: SandboxPolicy, inside: boolean): string[] {
  const args: string[] = []
  for (const h of policy.hidden) {
    if (isWithin(h.path, policy.projectDir) !== inside) continue
    if (h.kind === 'dir') args.push('--tmpfs', h.path, '--remount-ro', h.path)
    else args.push('--ro-bind', '/dev/null', h.path)
  }
  return args
}

/**
 * bwrap's arguments up to the command. Mounts apply in order, each over the ones before: the whole file system
 * read-only, fresh /dev, /proc and /tmp, the secrets covered, then the project writable, `.ralph/` and `.git`
 * read-only again on top, and the three files the model writes reopened.
 */
export function bwrapArgs(policy: SandboxPolicy): string[] {
  const args = [...BWRAP_NAMESPACE_FLAGS]
  if (!policy.network) args.push('--unshare-net')
  args.push('--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp')
  // A hidden folder that holds the project is covered before the project is bound, one inside it after.
  args.push(...hide(policy, false))
  args.push('--bind', policy.home, policy.home)
  args.push('--bind', policy.projectDir, policy.projectDir)
  args.push(...hide(policy, true))
  for (const p of policy.readOnly) args.push('--ro-bind', p.path, p.path)
  for (const file of policy.writable) args.push('--bind', file, file)
  args.push('--chdir', policy.projectDir)
  return args
}
