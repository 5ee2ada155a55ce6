// Every git process of the shadow store runs as the leader of its own process group (`detached: true`), so one
// kill reaches git and whatever it started (a fast-import helper, an index-pack). The group is stopped when the call
// times out, when its caller aborts, and when this process exits: an interrupted `ralph` used to leave git running.
//
// Stopping is SIGTERM first: git's handler removes its lock files (index.lock) before dying, where SIGKILL would
// leave them for the next operation to wait out as a live owner's (repair.ts waits up to 20 s). SIGKILL follows
// for a group still there after GIT_KILL_GRACE_MS.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { isDenied, isGone } from '../workspace'

export const GIT_KILL_GRACE_MS = 1000
/** On the way out of the process there is no event loop to wait in: SIGTERM, this long, then SIGKILL. */
const EXIT_GRACE_MS = 50

const live = new Set<ChildProcessWithoutNullStreams>()
let exitHookInstalled = false

const running = (child: ChildProcessWithoutNullStreams): boolean =>
  child.exitCode === null && child.signalCode === null

/** SIGTERM to the child's group now, SIGKILL if it is still running after GIT_KILL_GRACE_MS. */
export function stopGroup(child: ChildProcessWithoutNullStreams): void {
  killGroup(child, 'SIGTERM')
  const timer = setTimeout(() => {
    if (running(child)) killGroup(child, 'SIGKILL')
  }, GIT_KILL_GRACE_MS)
  timer.unref()
}

/** Kills a child's whole process group (the child itself where there are no groups: Windows). */
export function killGroup(child: ChildProcessWithoutNullStreams, signal: NodeJS.Signals = 'SIGKILL'): void {
  if (child.pid === undefined) return
  if (process.platform !== 'win32') {
    try {
      process.kill(-child.pid, signal)
      return
    } catch (err) {
      // ESRCH: the group is gone already (or never formed): fall through to the child.
      if (!isGone(err) && !isDenied(err)) throw err
    }
  }
  try {
    child.kill(signal)
  } catch (err) {
    if (!isGone(err)) throw err
  }
}

/**
 * Stops every git process group this process started that is still running, synchronously (the process is about
 * to exit: a second Ctrl+C, the stop deadline, the 'exit' hook): SIGTERM, a short pause for git to remove its lock
 * files, then SIGKILL for anything left.
 */
export function killAllGitGroups(): number {
  const children = [...live].filter(running)
  if (children.length === 0) return 0
  for (const child of children) killGroup(child, 'SIGTERM')
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, EXIT_GRACE_MS)
  for (const child of children) killGroup(child, 'SIGKILL')
  return children.length
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
    process.once('exit', () => killAllGitGroups())
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
