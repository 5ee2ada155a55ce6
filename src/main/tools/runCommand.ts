import { spawn } from 'node:child_process'
import { readdir, readFile, readlink, realpath } from 'node:fs/promises'
import { z } from 'zod'
import { prepareSandbox, type SandboxLimits } from '../sandbox'
import { createPidsCgroup, type CommandCgroup } from '../sandbox/cgroup'
import { noteFailure } from '../workspace/failures'
import type { Logger } from '../workspace/logFile'
import { defineTool } from './defineTool'
import { commandEnv } from './env'
import { isDenied, isGone, unlessExpected, unrecorded } from './errorKinds'
import {
  captureHarnessFiles,
  marksComplete,
  MODEL_WRITABLE_FILES,
  readStatus,
  restoreHarnessFiles,
  STATUS_FILE,
} from './ralphFiles'
import { formatBytes } from './text'
import { errorResult, type RunContext, type ToolResult } from './types'

export const COMMAND_MAX_TIMEOUT_MS = 10 * 60_000
export const COMMAND_MIN_TIMEOUT_MS = 1000
const HEAD_BYTES = 8000
const TAIL_BYTES = 12_000
/** How long a process group gets between SIGTERM and SIGKILL. */
const KILL_GRACE_MS = 500
/** How long to wait for pipes to close after the shell exited (a daemon may hold them open). */
const DRAIN_MS = 1000

const schema = z.strictObject({
  command: z
    .string()
    .describe(
      'Shell command (/bin/sh -c) run in the project root, without a terminal or input. Use it to build, test, ' +
        'lint, install dependencies or run scripts. It must finish on its own: never start servers or watchers ' +
        'that keep running (use "run" modes, e.g. "npx vitest run"); background processes are stopped when ' +
        'the command ends. It runs in a sandbox: the project is writable; .git, .ralph/ (except plan.tsx, ' +
        'summary.md and status.txt: write those with > or write_file, not sed -i) and the rest of the system ' +
        'are read-only; HOME is a scratch folder; no API keys or other secrets are in its environment.',
    ),
  timeout_ms: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe(
      `Kill the command (and everything it started) after this many milliseconds. Default from the project ` +
        `settings (usually 120000); at most ${COMMAND_MAX_TIMEOUT_MS}.`,
    ),
})
export type RunCommandArgs = z.infer<typeof schema>

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

/** Linux: the state letter of a process from /proc (Z = zombie), or null when it is gone or unknowable. */
async function procState(log: Logger, pid: string): Promise<{ state: string; pgrp: number } | null> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(procGone(log, null))
  if (stat === null) return null
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return { state: fields[0] ?? '', pgrp: Number(fields[2]) }
}

/**
 * True while a process group has a live (non-zombie) member. Killed orphans are reparented to PID 1, which in
 * containers may be slow to reap them; counting zombies as alive would make every kill wait its full grace.
 */
async function groupAlive(log: Logger, pgid: number): Promise<boolean> {
  try {
    process.kill(-pgid, 0)
  } catch (err) {
    if (!isGone(err))
      noteFailure(log, `run_command: could not probe process group ${pgid}; taken as ended`, err)
    return false
  }
  if (process.platform !== 'linux') return true
  const pids = await readdir('/proc').catch(procGone(log, null))
  if (pids === null) return true
  const states = await Promise.all(pids.filter((p) => /^\d+$/.test(p)).map((p) => procState(log, p)))
  return states.some((s) => s !== null && s.pgrp === pgid && s.state !== 'Z')
}

/** SIGTERM to the whole process group, SIGKILL for whatever is left after a short grace period. */
async function killGroup(log: Logger, pid: number): Promise<void> {
  if (!signalGroup(log, pid, 'SIGTERM')) return
  const until = Date.now() + KILL_GRACE_MS
  while (Date.now() < until && (await groupAlive(log, pid))) await new Promise((r) => setTimeout(r, 25))
  signalGroup(log, pid, 'SIGKILL')
}

/** Sends a signal to a process (or with a negative id its group); false when it was already gone. */
function signal(log: Logger, pid: number, sig: NodeJS.Signals): boolean {
  try {
    process.kill(pid, sig)
    return true
  } catch (err) {
    if (!isGone(err)) noteFailure(log, `run_command: could not send ${sig} to ${pid}`, err)
    return false
  }
}

const signalGroup = (log: Logger, pgid: number, sig: NodeJS.Signals) => signal(log, -pgid, sig)

/** /proc entries of processes that ended (or that we may not look into) are expected: only the rest is noted. */
const procGone = <T>(log: Logger, fallback: T) =>
  unlessExpected(log, 'run_command: could not read /proc', fallback, (err) => isGone(err) || isDenied(err))

/** How often the watchdog looks at a sandboxed command's processes and memory. */
const WATCH_INTERVAL_MS = 50
const EXIT_FILE_TOO_LARGE = 128 + 25 // SIGXFSZ

/** bwrap's PID-namespace init (its first child), once it exists. */
async function namespaceInit(log: Logger, bwrapPid: number): Promise<number | null> {
  const children = await readFile(`/proc/${bwrapPid}/task/${bwrapPid}/children`, 'utf8').catch(
    procGone(log, ''),
  )
  const first = children.trim().split(' ')[0]
  return first ? Number(first) : null
}

const numeric = (names: string[]) => names.filter((p) => /^\d+$/.test(p))

/**
 * The processes of the command's PID namespace, as paths of their /proc folders. The sandbox's own /proc,
 * reached through the init's root, lists only them: one readdir however busy the machine is. Where that is
 * not readable, the host's /proc is filtered by namespace.
 */
async function namespaceProcs(log: Logger, init: number): Promise<string[] | null> {
  const inner = `/proc/${init}/root/proc`
  const own = await readdir(inner).catch(procGone(log, null))
  if (own !== null) return numeric(own).map((p) => `${inner}/${p}`)
  const ns = await readlink(`/proc/${init}/ns/pid`).catch(procGone(log, null))
  if (ns === null) return null
  const all = numeric(await readdir('/proc').catch(procGone(log, [] as string[])))
  const links = await Promise.all(all.map((p) => readlink(`/proc/${p}/ns/pid`).catch(procGone(log, null))))
  return all.filter((_, i) => links[i] === ns).map((p) => `/proc/${p}`)
}

/** Tasks (threads included, as a pid limit counts them) and resident memory of those processes. */
async function usageOf(log: Logger, procs: string[]): Promise<{ tasks: number; rssBytes: number }> {
  let tasks = 0
  let rssBytes = 0
  await Promise.all(
    procs.map(async (dir) => {
      const status = await readFile(`${dir}/status`, 'utf8').catch(procGone(log, ''))
      if (status === '') return
      tasks += Number(/^Threads:\s+(\d+)/m.exec(status)?.[1] ?? 1)
      rssBytes += Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? 0) * 1024
    }),
  )
  return { tasks, rssBytes }
}

/**
 * Stops a sandboxed command that starts more processes or holds more memory than its limits allow.
 * RLIMIT_NPROC does nothing for root and counts the user's other processes otherwise, and a cgroup is rarely
 * writable for an app (cgroup v2 needs systemd delegation), so this watchdog is what limits every setup: it
 * counts the processes of the command's own PID namespace and their resident memory, and past a limit kills
 * the namespace's init, which takes every process inside with it. Where a pids cgroup could be made
 * (sandbox/cgroup.ts) the kernel refuses the forks past the limit and the watchdog reads that it did.
 * Returns a function that ends the watch.
 */
function watchLimits(
  log: Logger,
  bwrapPid: number,
  limits: SandboxLimits,
  cgroup: CommandCgroup | null,
  onExceeded: (what: 'processes' | 'memory') => void,
): () => void {
  let ended = false
  let init: number | null = null
  const tick = async () => {
    if (ended) return
    if (cgroup !== null && (await cgroup.limitHit())) return onExceeded('processes')
    init ??= await namespaceInit(log, bwrapPid)
    const procs = init === null ? null : await namespaceProcs(log, init)
    if (procs !== null) {
      // The namespace's init (bwrap) is one of them. Counting the processes first is cheap: a fork bomb is
      // stopped before its thousands of status files are read.
      if (procs.length - 1 > limits.processes) return onExceeded('processes')
      const usage = await usageOf(log, procs)
      if (usage.tasks - 1 > limits.processes) return onExceeded('processes')
      if (usage.rssBytes > limits.memoryMb * 1024 * 1024) return onExceeded('memory')
    }
    if (!ended) timer = setTimeout(() => void tick(), WATCH_INTERVAL_MS)
  }
  let timer = setTimeout(() => void tick(), 0)
  return () => {
    ended = true
    clearTimeout(timer)
  }
}

/** SIGKILL to bwrap's PID-namespace init (everything inside dies with it) and to the whole process group. */
async function killSandbox(log: Logger, bwrapPid: number): Promise<void> {
  const children = await readFile(`/proc/${bwrapPid}/task/${bwrapPid}/children`, 'utf8').catch(
    procGone(log, ''),
  )
  for (const pid of children
    .trim()
    .split(' ')
    .filter((p) => p !== ''))
    signal(log, Number(pid), 'SIGKILL')
  signalGroup(log, bwrapPid, 'SIGKILL')
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
  /**
   * Where failures the command's bookkeeping survives are recorded (the core's log). Optional only while the
   * callers outside tools/ (the loop's gates, verification) are being wired; without it they are not recorded.
   */
  logger?: Logger
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
  const log = opts.logger ?? unrecorded
  const sandbox = await prepareSandbox({
    projectDir: opts.cwd,
    env: base,
    writableRalphFiles: MODEL_WRITABLE_FILES,
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

export async function runCommandTool(args: RunCommandArgs, ctx: RunContext): Promise<ToolResult> {
  if (args.command.trim() === '') return errorResult('command is empty. Give a shell command to run.')
  if (ctx.signal.aborted) return errorResult('Not run: the task was cancelled.')
  const requested = args.timeout_ms ?? ctx.commandTimeoutMs
  const timeoutMs = Math.min(Math.max(Math.round(requested), COMMAND_MIN_TIMEOUT_MS), COMMAND_MAX_TIMEOUT_MS)
  const cwd = await realpath(ctx.projectDir)
  const harnessBefore = await captureHarnessFiles(cwd)
  const statusBefore = await readStatus(cwd)

  const r = await runShellCommand(args.command, {
    cwd,
    timeoutMs,
    signal: ctx.signal,
    env: ctx.env,
    logger: ctx.logger,
  })

  const restored = await restoreHarnessFiles(cwd, harnessBefore)
  const statusAfter = await readStatus(cwd)
  // A shell write of "complete" to status.txt counts like write_file's (DESIGN.md §7).
  const completed =
    statusAfter !== null &&
    marksComplete(STATUS_FILE, statusAfter) &&
    !marksComplete(STATUS_FILE, statusBefore ?? '')

  if (r.spawnError) {
    return errorResult(
      r.spawnError.startsWith('Not run:') ? r.spawnError : `Could not start the command: ${r.spawnError}`,
    )
  }
  const seconds = (r.durationMs / 1000).toFixed(1)
  const lines = [`$ ${args.command}`]
  if (r.timedOut) {
    lines.push(
      `Killed after ${timeoutMs} ms (timeout), with every process it started. Pass a larger timeout_ms ` +
        `(at most ${COMMAND_MAX_TIMEOUT_MS}) for long commands; never start servers or watchers that do not exit.`,
    )
  } else if (r.limitHit === 'processes') {
    lines.push(
      `Stopped after ${seconds} s: the command started more than ${r.limits?.processes} processes (its limit) ` +
        'and was stopped, with every process it started. A fork bomb or runaway parallelism? Raise ' +
        '"sandbox": { "limits": { "processes": N } } in .ralph/config.json only if the user agrees.',
    )
  } else if (r.limitHit === 'memory') {
    lines.push(
      `Stopped after ${seconds} s: the command ran out of its memory limit of ${r.limits?.memoryMb} MB ` +
        '(all its processes together) and was stopped. Use less memory (smaller inputs, fewer parallel jobs).',
    )
  } else if (r.aborted) {
    lines.push(`Stopped after ${seconds} s: the task was cancelled.`)
  } else if (r.exitCode !== null) {
    lines.push(`Exit code: ${r.exitCode} (${seconds} s)`)
  } else lines.push(`Killed by signal ${r.signal} (${seconds} s)`)
  if (
    r.limits !== null &&
    (r.exitCode === EXIT_FILE_TOO_LARGE ||
      r.signal === 'SIGXFSZ' ||
      /File size limit exceeded/.test(r.stderr))
  ) {
    lines.push(
      `A process was stopped for writing a file larger than the file-size limit of ${r.limits.fileSizeMb} MB.`,
    )
  }
  if (r.limits !== null && /No space left on device/.test(r.output)) {
    lines.push(
      `(If that was in /tmp: the command's /tmp holds at most ${r.limits.tmpMb} MB. Write large files in the project.)`,
    )
  }
  if (requested > COMMAND_MAX_TIMEOUT_MS) lines.push(`(timeout_ms was capped at ${COMMAND_MAX_TIMEOUT_MS}.)`)
  if (r.stdout === '' && r.stderr === '') lines.push('(no output)')
  if (r.stdout !== '') lines.push('--- stdout ---', r.stdout.replace(/\n$/, ''))
  if (r.stderr !== '') lines.push('--- stderr ---', r.stderr.replace(/\n$/, ''))
  if (restored.length > 0) {
    lines.push(
      `[Restored ${restored.join(', ')}: these files belong to the harness and commands may not change them.]`,
    )
  }
  // The loop judges progress from the snapshot status: a command's file changes are not tracked here.
  return {
    ok: !r.timedOut && !r.aborted && r.limitHit === null && r.exitCode === 0,
    output: lines.join('\n'),
    changedFiles: [],
    completed,
  }
}

export const runCommand = defineTool({
  name: 'run_command',
  description:
    'Run a shell command in the project root with a timeout and return its exit code and output (long output ' +
    'keeps its beginning and end). Use it to install, build, test and lint.',
  schema,
  readOnly: false,
  run: runCommandTool,
})
