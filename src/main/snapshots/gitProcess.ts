// Every git process of the shadow store runs as the leader of its own process group (`detached: true`), so one
// kill reaches git and whatever it started (a fast-import helper, an index-pack). The group is stopped when the call
// times out, when its caller aborts, and when this process exits: an interrupted `ralph` used to leave git running.
//
// Stopping is SIGTERM first: git's handler removes its lock files (index.lock) before dying, where SIGKILL would
// leave them for the next operation to wait out as a live owner's (repair.ts waits up to 20 s). SIGKILL follows
// for a group still there after GIT_KILL_GRACE_MS.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { isDenied, isGone } from '../workspace'
import {
  GIT_KILL_GRACE_MS,
  helperCallCount,
  helperGroups,
  helperUsable,
  runInHelper,
  type GitRunEnd,
  type GitRunRequest,
} from './gitSpawner'

export { GIT_KILL_GRACE_MS }
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
  // The helper's calls (gitSpawner.ts): their groups are known by pid, and killed from here as well.
  const groups = helperGroups()
  if (children.length === 0 && groups.length === 0) return 0
  for (const child of children) killGroup(child, 'SIGTERM')
  for (const pid of groups) killPid(pid, 'SIGTERM')
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, EXIT_GRACE_MS)
  for (const child of children) killGroup(child, 'SIGKILL')
  for (const pid of groups) killPid(pid, 'SIGKILL')
  return children.length + groups.length
}

function killPid(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal)
  } catch (err) {
    if (!isGone(err) && !isDenied(err)) throw err
  }
}

/** How many shadow-git processes are running now (tests, the CLI's signal handler). */
export function liveGitCount(): number {
  return live.size + helperCallCount()
}

/** One buffered git call, wherever it runs. */
export interface GitCall {
  /** Resolves when git has exited and its output is in; rejects when it could not be started. */
  readonly end: Promise<GitRunEnd>
  /** Stops its process group: SIGTERM, then SIGKILL after GIT_KILL_GRACE_MS. */
  stop(): void
  running(): boolean
}

/**
 * Runs git with its output buffered, in its own process group: through the helper process where it can
 * (gitSpawner.ts: a fork of this large process costs its one thread tens of milliseconds), else directly.
 */
export function startGit(req: GitRunRequest): GitCall {
  return helperUsable() ? runInHelper(req, startDirect) : startDirect(req)
}

function startDirect(req: GitRunRequest): GitCall {
  const child = spawnGitGroup(req.binary, req.args, { env: req.env, ...(req.cwd ? { cwd: req.cwd } : {}) })
  const end = new Promise<GitRunEnd>((resolve, reject) => {
    const out: Buffer[] = []
    const err: Buffer[] = []
    child.stdout.on('data', (b: Buffer) => out.push(b))
    child.stderr.on('data', (b: Buffer) => err.push(b))
    child.on('error', reject)
    child.on('close', (code, signal) =>
      resolve({ code, signal, stdout: Buffer.concat(out), stderr: Buffer.concat(err) }),
    )
  })
  // A child that dies early closes stdin; EPIPE is reported through the exit code instead.
  child.stdin.on('error', () => {})
  if (req.input !== undefined) child.stdin.end(req.input)
  else child.stdin.end()
  return { end, stop: () => stopGroup(child), running: () => running(child) }
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
