// Shadow-git calls started by a small helper process instead of this one. On Linux a spawn forks the whole process
// first, and the fork copies its page tables while its one thread waits: in a `ralph build --parallel 4` of 250 MB
// that was 20–35 ms per git call, about 700 calls, half of the main thread's busy time (issue #38's profile). The
// helper is a bare Node process of a few dozen MB: its forks are several times cheaper and block nobody's loop.
//
// The helper starts each git in a process group of its own (as gitProcess.ts does) and reports its pid, so this
// process can still kill every group synchronously on its way out. When this process dies (even by kill -9) the
// helper sees its channel close, stops every group it started (SIGTERM, then SIGKILL) and exits.
import { spawn, type ChildProcess } from 'node:child_process'

/** How long a stopped git's group has after SIGTERM (removing its lock files) before SIGKILL. */
export const GIT_KILL_GRACE_MS = 1000

export interface GitRunRequest {
  binary: string
  args: string[]
  env: NodeJS.ProcessEnv
  cwd?: string
  input?: string | Buffer
}

export interface GitRunEnd {
  code: number | null
  signal: NodeJS.Signals | null
  stdout: Buffer
  stderr: Buffer
}

/** One git call in the helper's care. */
export interface HelperCall {
  /** Resolves when git has exited and its output is in; rejects when it could not start or the helper died. */
  readonly end: Promise<GitRunEnd>
  /** Its process group: SIGTERM now, SIGKILL after GIT_KILL_GRACE_MS if it still runs (done by the helper). */
  stop(): void
  /** Whether it has not ended yet. */
  running(): boolean
}

type Reply =
  | { id: number; kind: 'pid'; pid: number }
  | {
      id: number
      kind: 'close'
      code: number | null
      signal: NodeJS.Signals | null
      stdout: Uint8Array
      stderr: Uint8Array
    }
  | { id: number; kind: 'error'; message: string; code?: string }

interface Pending {
  req: GitRunRequest
  pid: number | undefined
  resolve(end: GitRunEnd): void
  reject(err: Error): void
  /** Where the call went when the helper died before starting it. */
  moved: HelperCall | null
}

/**
 * The helper's program: plain JavaScript run by `node -e`, so it needs no file of its own beside the bundle. It
 * uses only its argument and Node's globals (it is sent as source text).
 */
function helperMain(nodeRequire: (id: string) => unknown, grace: number): void {
  const { spawn: start } = nodeRequire('node:child_process') as typeof import('node:child_process')
  const live = new Map<number, ChildProcess>()
  const send = (m: unknown) => {
    if (process.connected) process.send!(m)
  }
  const killGroup = (child: ChildProcess, signal: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, signal)
    } catch (err) {
      // ESRCH: the group is gone already (or never formed): the child itself then (kill never throws for it).
      if ((err as NodeJS.ErrnoException).code !== 'ESRCH')
        process.stderr.write(`ralph's git helper could not signal git's group: ${String(err)}\n`)
      child.kill(signal)
    }
  }
  process.on('SIGINT', () => {}) // a terminal's Ctrl+C is for ralph to decide on; the channel's end stops us
  process.on('message', (m: { kind: 'run' | 'stop'; id: number } & GitRunRequest) => {
    if (m.kind === 'stop') {
      const child = live.get(m.id)
      if (!child) return
      killGroup(child, 'SIGTERM')
      setTimeout(() => {
        if (live.has(m.id)) killGroup(child, 'SIGKILL')
      }, grace).unref()
      return
    }
    let settled = false
    const settle = (reply: Record<string, unknown>) => {
      if (settled) return
      settled = true
      live.delete(m.id)
      send({ id: m.id, ...reply })
    }
    let child: ChildProcess
    try {
      child = start(m.binary, m.args, { env: m.env, cwd: m.cwd, stdio: 'pipe', detached: true })
    } catch (err) {
      settle({ kind: 'error', message: (err as Error).message, code: (err as { code?: string }).code })
      return
    }
    const out: Buffer[] = []
    const errs: Buffer[] = []
    child.stdout!.on('data', (b: Buffer) => out.push(b))
    child.stderr!.on('data', (b: Buffer) => errs.push(b))
    child.on('error', (err: NodeJS.ErrnoException) =>
      settle({ kind: 'error', message: err.message, code: err.code }),
    )
    child.on('close', (code, signal) =>
      settle({ kind: 'close', code, signal, stdout: Buffer.concat(out), stderr: Buffer.concat(errs) }),
    )
    if (child.pid !== undefined) {
      live.set(m.id, child)
      send({ id: m.id, kind: 'pid', pid: child.pid })
    }
    child.stdin!.on('error', () => {}) // a git that exits early closes stdin: its exit code says why
    child.stdin!.end(m.input)
  })
  process.on('disconnect', () => {
    for (const child of live.values()) killGroup(child, 'SIGTERM')
    setTimeout(() => {
      for (const child of live.values()) killGroup(child, 'SIGKILL')
      process.exit(0)
    }, 50)
  })
}

/** The helper's last argument: how `ps` (and the bench's CPU count) tells it from other Node processes. */
export const GIT_HELPER_ARG = 'ralph-git-helper'

let helper: ChildProcess | null = null
/** Set when the helper could not start or died: every call from then on is started directly. */
let broken: Error | null = null
const pending = new Map<number, Pending>()
let nextId = 1

/** Whether git calls go through the helper: Node on a POSIX system, unless RALPH_GIT_HELPER=0 or it broke. */
export function helperUsable(): boolean {
  return (
    broken === null &&
    process.platform !== 'win32' &&
    process.versions.electron === undefined &&
    process.env.RALPH_GIT_HELPER !== '0'
  )
}

/** Why the helper is not used any more (it could not start, or it died), or null. */
export function helperBroken(): Error | null {
  return broken
}

function startHelper(): ChildProcess {
  // `__name`: what a bundler that keeps function names (tsx) wraps inner functions in.
  const source = `var __name = (f) => f;\n(${helperMain.toString()})(require, ${GIT_KILL_GRACE_MS})`
  const child = spawn(process.execPath, ['-e', source, GIT_HELPER_ARG], {
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    serialization: 'advanced',
    // Its own group: a terminal's signals reach ralph only; it ends when ralph's channel closes.
    detached: true,
    env: { PATH: process.env.PATH ?? '' },
  })
  child.on('message', (reply: Reply) => onReply(reply))
  child.on('error', (err) => fail(err))
  child.on('exit', (code, signal) => fail(new Error(`the git helper exited (${signal ?? `code ${code}`})`)))
  child.unref()
  idle(child)
  return child
}

/** Not waiting for anything: the helper does not keep this process alive. */
function idle(child: ChildProcess): void {
  ;(child.channel as { unref?: () => void } | undefined)?.unref?.()
}

/**
 * The helper could not start or died: calls it had not started yet are started directly; those it ran lose their
 * output (their git was stopped with the helper) and fail saying so.
 */
function fail(err: Error): void {
  if (helper === null) return
  helper = null
  broken ??= err
  process.emitWarning(`ralph starts git directly from now on: ${err.message}`)
  for (const [id, p] of pending) {
    if (p.pid === undefined && directRun) {
      p.moved = directRun(p.req)
      p.moved.end.then(p.resolve, p.reject)
      continue
    }
    pending.delete(id)
    p.reject(new Error(`The git helper process stopped while git ran: ${err.message}`))
  }
}

function onReply(reply: Reply): void {
  const p = pending.get(reply.id)
  if (!p) return
  if (reply.kind === 'pid') {
    p.pid = reply.pid
    return
  }
  pending.delete(reply.id)
  if (pending.size === 0 && helper) idle(helper)
  if (reply.kind === 'error')
    p.reject(Object.assign(new Error(reply.message), reply.code ? { code: reply.code } : {}))
  else
    p.resolve({
      code: reply.code,
      signal: reply.signal,
      stdout: Buffer.from(reply.stdout.buffer, reply.stdout.byteOffset, reply.stdout.byteLength),
      stderr: Buffer.from(reply.stderr.buffer, reply.stderr.byteOffset, reply.stderr.byteLength),
    })
}

let directRun: ((req: GitRunRequest) => HelperCall) | null = null

/**
 * Starts one git call in the helper (started on first use). `direct` starts a call in this process: where calls
 * go once the helper is gone.
 */
export function runInHelper(req: GitRunRequest, direct: (req: GitRunRequest) => HelperCall): HelperCall {
  directRun = direct
  helper ??= startHelper()
  const child = helper
  const id = nextId++
  let entry: Pending
  const end = new Promise<GitRunEnd>((resolve, reject) => {
    entry = { req, pid: undefined, resolve, reject, moved: null }
  })
  const p = entry!
  pending.set(id, p)
  void end.then(
    () => pending.delete(id),
    () => pending.delete(id),
  )
  ;(child.channel as { ref?: () => void } | undefined)?.ref?.()
  child.send({ kind: 'run', id, ...req })
  return {
    end,
    stop: () => {
      if (p.moved) p.moved.stop()
      else if (pending.has(id) && helper === child) child.send({ kind: 'stop', id })
    },
    running: () => pending.has(id),
  }
}

/** Calls in the helper's care that have not ended. */
export function helperCallCount(): number {
  return pending.size
}

/** The process groups of the helper's git calls that are running (this process kills them on its way out). */
export function helperGroups(): number[] {
  return [...pending.values()].flatMap((p) => (p.pid === undefined ? [] : [p.pid]))
}

/** The helper's pid while it runs (tests, diagnostics), else null. */
export function helperPid(): number | null {
  return helper?.pid ?? null
}
