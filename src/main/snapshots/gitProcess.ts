// Every git process of the shadow store runs as the leader of its own process group (`detached: true`), so one
// kill reaches git and whatever it started (a fast-import helper, an index-pack). The group is killed when the call
// times out, when its caller aborts, and when this process exits: SIGKILL of `ralph` used to leave git orphaned.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'

const live = new Set<ChildProcessWithoutNullStreams>()
let exitHookInstalled = false

/** Kills a child's whole process group (the child itself where there are no groups: Windows). */
export function killGroup(child: ChildProcessWithoutNullStreams, signal: NodeJS.Signals = 'SIGKILL'): void {
  if (child.pid === undefined) return
  if (process.platform !== 'win32') {
    try {
      process.kill(-child.pid, signal)
      return
    } catch {
      // ESRCH: the group is gone already (or never formed): fall through to the child.
    }
  }
  try {
    child.kill(signal)
  } catch {
    // Gone.
  }
}

/** Kills every git process group this process started that is still running (exit, a second Ctrl+C). */
export function killAllGitGroups(signal: NodeJS.Signals = 'SIGKILL'): number {
  let n = 0
  for (const child of live) {
    killGroup(child, signal)
    n++
  }
  return n
}

/** How many shadow-git processes are running now (tests, the CLI's signal handler). */
export function liveGitCount(): number {
  return live.size
}

/**
 * Starts git in its own process group with piped stdio, tracked until it exits. On the way out of this process
 * (a normal exit, process.exit after a signal) every group still running is killed: the 'exit' hook is
 * synchronous, and process.kill is too.
 */
export function spawnGitGroup(
  binary: string,
  args: string[],
  opts: { env: NodeJS.ProcessEnv; cwd?: string },
): ChildProcessWithoutNullStreams {
  if (!exitHookInstalled) {
    exitHookInstalled = true
    process.once('exit', () => killAllGitGroups('SIGKILL'))
  }
  const child = spawn(binary, args, {
    env: opts.env,
    cwd: opts.cwd,
    stdio: ['pipe', 'pipe', 'pipe'],
    windowsHide: true,
    // Its own group (setsid): a kill of the group reaches its children; a terminal's Ctrl+C reaches only us,
    // and our handler decides (entry.ts).
    detached: process.platform !== 'win32',
  })
  if (child.pid !== undefined) {
    live.add(child)
    child.once('exit', () => live.delete(child))
    child.once('error', () => live.delete(child))
  }
  return child
}
