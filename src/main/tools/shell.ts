// One shell command run for the model or the harness (the quality gates, verification): in the sandbox, with an
// allowlisted environment, a timeout, and bounded output.
import { spawn } from 'node:child_process'
import { prepareSandbox, type SandboxLimits, createPidsCgroup } from '../sandbox'
import type { Logger } from '../workspace'
import { commandEnv } from './env'
import { groupAlive, killGroup, killSandbox, watchLimits } from './processes'
import { MODEL_WRITABLE_FILES } from './ralphFiles'
import { formatBytes } from './text'

export const COMMAND_MAX_TIMEOUT_MS = 10 * 60_000
const HEAD_BYTES = 8000
const TAIL_BYTES = 12_000
/** How long to wait for pipes to close after the shell exited (a daemon may hold them open). */
const DRAIN_MS = 1000

/** Keeps the first and last bytes of a stream: memory stays bounded whatever a command prints. */
class Capture {
  private head: Buffer[] = []
  private headBytes = 0
  private tail: Buffer[] = []
  private tailBytes = 0
  total = 0

  push(chunk: Buffer): void {
    this.total += chunk.length
    if (this.headBytes < HEAD_BYTES) {
      const take = chunk.subarray(0, HEAD_BYTES - this.headBytes)
      this.head.push(take)
      this.headBytes += take.length
      chunk = chunk.subarray(take.length)
    }
    if (chunk.length === 0) return
    this.tail.push(chunk)
    this.tailBytes += chunk.length
    while (this.tailBytes - this.tail[0]!.length >= TAIL_BYTES) this.tailBytes -= this.tail.shift()!.length
  }

  text(): string {
    const head = Buffer.concat(this.head).toString('utf8')
    let tail = Buffer.concat(this.tail)
    const omitted = this.total - this.headBytes - Math.min(tail.length, TAIL_BYTES)
    if (tail.length > TAIL_BYTES) tail = tail.subarray(tail.length - TAIL_BYTES)
    if (omitted <= 0) return head + tail.toString('utf8')
    return (
      `${head}\n[… ${formatBytes(omitted)} omitted (${formatBytes(this.total)} in all). To see everything, redirect ` +
      `the output to a file (cmd > out.log 2>&1) and read it with grep or read_file …]\n${tail.toString('utf8')}`
    )
  }
}

export interface ShellOptions {
  /** Folder to run in (the project root). */
  cwd: string
  timeoutMs: number
  signal?: AbortSignal
  /**
   * The caller's environment (default process.env). The command gets only its allowlisted part, plus the
   * variables the project declares in `.ralph/config.json` sandbox.passEnv.
   */
  env?: NodeJS.ProcessEnv
  /** HOME inside instead of the project's scratch home (a private folder of the caller's, a real path). */
  home?: string
  /**
   * Where failures the command's bookkeeping survives are recorded (the core's log). Optional only while the
   * callers outside tools/ (the loop's gates, verification) are being wired; without it they are not recorded.
   */
  logger: Logger
}

export interface ShellOutcome {
  /** Null when the process was killed by a signal or could not start. */
  exitCode: number | null
  signal: NodeJS.Signals | null
  timedOut: boolean
  aborted: boolean
  /** Set when the watchdog stopped the command for going past a limit. */
  limitHit: 'processes' | 'memory' | null
  /** The limits the command ran with (null when it did not start in a sandbox). */
  limits: SandboxLimits | null
  /** Head and tail of each stream, with a note when the middle was cut. */
  stdout: string
  stderr: string
  /** stdout then stderr, for callers that show one text (the quality gates). */
  output: string
  durationMs: number
  /** Set when the shell could not be started at all (also: no sandbox and no permission to run without). */
  spawnError: string | null
}

/**
 * Runs `/bin/sh -c command` in the sandbox (src/main/sandbox) with an allowlisted environment, in its own
 * process group. A timeout or an abort kills the whole group (SIGTERM, then SIGKILL); under bubblewrap that
 * ends the PID namespace, so nothing the command started survives, `setsid` daemons included. Elsewhere
 * background jobs left in the group are stopped when the shell exits.
 */
export async function runShellCommand(command: string, opts: ShellOptions): Promise<ShellOutcome> {
  const timeoutMs = Math.min(Math.max(1, Math.round(opts.timeoutMs)), COMMAND_MAX_TIMEOUT_MS)
  const started = Date.now()
  const stdout = new Capture()
  const stderr = new Capture()
  const result = (
    exit: { code: number | null; signal: NodeJS.Signals | null },
    stopped: string | null,
    spawnError: string | null,
    limits: SandboxLimits | null = null,
  ): ShellOutcome => {
    const out = stdout.text()
    const err = stderr.text()
    return {
      exitCode: exit.code,
      signal: exit.signal,
      timedOut: stopped === 'timeout',
      aborted: stopped === 'aborted',
      limitHit: stopped === 'processes' || stopped === 'memory' ? stopped : null,
      limits,
      stdout: out,
      stderr: err,
      output: out && err ? `${out.replace(/\n?$/, '\n')}${err}` : out || err,
      durationMs: Date.now() - started,
      spawnError,
    }
  }
  if (opts.signal?.aborted) return result({ code: null, signal: null }, 'aborted', null)

  const base = opts.env ?? process.env
  const log = opts.logger
  const sandbox = await prepareSandbox({
    projectDir: opts.cwd,
    env: base,
    writableRalphFiles: MODEL_WRITABLE_FILES,
    ...(opts.home !== undefined ? { home: opts.home } : {}),
    logger: log,
  })
  if (!sandbox.ok) {
    stderr.push(Buffer.from(sandbox.message))
    return result({ code: null, signal: null }, null, sandbox.message)
  }
  let launch = sandbox.wrap(command, commandEnv(base, { home: sandbox.home, passEnv: sandbox.passEnv }))
  // bwrap and its namespace init count too.
  const cgroup =
    sandbox.kind === 'bubblewrap' ? await createPidsCgroup(sandbox.limits.processes + 3, log) : null
  if (cgroup !== null) {
    // A first shell joins the cgroup and becomes bwrap, so the namespace is inside from its first fork. The
    // command stays an argument of bwrap: this shell never reads it.
    launch = {
      ...launch,
      file: '/bin/sh',
      args: ['-c', 'echo $$ > "$0" && exec "$@"', cgroup.procsFile, launch.file, ...launch.args],
    }
  }

  // detached: the sandbox (or the shell) leads its own process group, so a timeout or a stop kills it all.
  const child = spawn(launch.file, launch.args, {
    cwd: sandbox.projectDir,
    env: launch.env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  child.stdout.on('data', (c: Buffer) => stdout.push(c))
  child.stderr.on('data', (c: Buffer) => stderr.push(c))
  const closed = Promise.all([
    new Promise<void>((r) => child.stdout.once('close', () => r())),
    new Promise<void>((r) => child.stderr.once('close', () => r())),
  ])

  let stopped: 'timeout' | 'aborted' | 'processes' | 'memory' | null = null
  const stop = (why: 'timeout' | 'aborted') => {
    if (stopped || child.pid === undefined) return
    stopped = why
    void killGroup(log, child.pid)
  }
  const endWatch =
    sandbox.kind === 'bubblewrap' && child.pid !== undefined
      ? watchLimits(log, child.pid, sandbox.limits, cgroup, (what) => {
          if (stopped || child.pid === undefined) return
          stopped = what
          void killSandbox(log, child.pid)
        })
      : () => undefined
  const timer = setTimeout(() => stop('timeout'), timeoutMs)
  const onAbort = () => stop('aborted')
  opts.signal?.addEventListener('abort', onAbort, { once: true })

  let spawnError: string | null = null
  const exit = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('error', (err) => {
      spawnError = err.message
      resolve({ code: null, signal: null })
    })
    child.once('exit', (code, signal) => resolve({ code, signal }))
  })
  clearTimeout(timer)
  endWatch()
  opts.signal?.removeEventListener('abort', onAbort)
  // The kernel refuses forks past the cgroup's limit: a fork bomb can give up and exit before the watchdog's next
  // look, and the result must still say which limit it hit.
  if (stopped === null && cgroup !== null && (await cgroup.limitHit())) stopped = 'processes'
  // Background jobs the command left behind would outlive the task: stop the rest of the group too.
  if (child.pid !== undefined && (await groupAlive(log, child.pid))) await killGroup(log, child.pid)
  await Promise.race([closed, new Promise((r) => setTimeout(r, DRAIN_MS))])
  child.stdout.destroy()
  child.stderr.destroy()
  await cgroup?.remove()
  return result(exit, stopped, spawnError, sandbox.kind === 'none' ? null : sandbox.limits)
}
