// The processes of one command: probing and signalling its process group, and the watchdog that holds a
// sandboxed command to its process and memory limits (read from /proc, where processes end all the time).
import { readdir, readFile, readlink } from 'node:fs/promises'
import type { SandboxLimits, CommandCgroup } from '../sandbox'
import { isDenied, isGone, noteFailure, unlessExpected, type Logger } from '../workspace'

/** How long a process group gets between SIGTERM and SIGKILL. */
const KILL_GRACE_MS = 500

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
export async function groupAlive(log: Logger, pgid: number): Promise<boolean> {
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
export async function killGroup(log: Logger, pid: number): Promise<void> {
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

/** bwrap's PID-namespace init (its first child), once it exists. */
async function namespaceInit(log: Logger, bwrapPid: number): Promise<number | null> {
  const children = await readFile(`/proc/${bwrapPid}/task/${bwrapPid}/children`, 'utf8').catch(
    procGone(log, ''),
  )
  const first = children.trim().split(' ')[0]
  return first ? Number(first) : null
}

/** Ralph's own PID namespace, which no sandboxed command shares (read once). */
let hostPidNamespace: Promise<string | null> | undefined

const numeric = (names: string[]) => names.filter((p) => /^\d+$/.test(p))

/**
 * The processes of the command's PID namespace, as paths of their /proc folders. The sandbox's own /proc,
 * reached through the init's root, lists only them: one readdir however busy the machine is. Where that is
 * not readable, the host's /proc is filtered by namespace.
 */
async function namespaceProcs(log: Logger, init: number): Promise<string[] | null> {
  const ns = await readlink(`/proc/${init}/ns/pid`).catch(procGone(log, null))
  // Our own namespace: the init is gone and its pid taken by a process of the host (pids wrap at 32768).
  hostPidNamespace ??= readlink('/proc/self/ns/pid').catch(procGone(log, null))
  if (ns === null || ns === (await hostPidNamespace)) return null
  const inner = `/proc/${init}/root/proc`
  const own = await readdir(inner).catch(procGone(log, null))
  if (own !== null) {
    // Until bwrap has mounted the sandbox's /proc (it does so after the fork), the init's root is still the host's
    // and this lists every process of the machine: its memory would read as the command's. The sandbox's own /proc
    // is the one whose pid 1 is the init itself.
    const first = await readlink(`${inner}/1/ns/pid`).catch(procGone(log, null))
    return first === ns ? numeric(own).map((p) => `${inner}/${p}`) : null
  }
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
export function watchLimits(
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
export async function killSandbox(log: Logger, bwrapPid: number): Promise<void> {
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
