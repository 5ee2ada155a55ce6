// The memory of a running `ralph` process and what it started, sampled from /proc (Linux only): the process's own
// peak (VmHWM, exact, read until it exits) and the largest sum of resident memory over its process tree seen in a
// sample (git, bubblewrap and the project's commands it runs included); and the CPU time it used, its own and its
// waited-for children's (/proc/PID/stat, as of the last sample before it ended), and those of its git helper (whose
// git processes ralph never waits for itself: src/main/snapshots/gitSpawner.ts).
import { spawn } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { GIT_HELPER_ARG } from '../src/main/snapshots/gitSpawner'
import { workingLaneStates, type LaneState } from '../src/shared/buildLanes'

const isGone = (err: unknown) => ['ENOENT', 'ESRCH'].includes((err as NodeJS.ErrnoException).code ?? '')

/** `pid` and its descendants now. */
function tree(pid: number): number[] {
  const children = new Map<number, number[]>()
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8')
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
      children.set(ppid, [...(children.get(ppid) ?? []), Number(name)])
    } catch (err) {
      if (!isGone(err)) throw err // a process that ended meanwhile is no longer in the tree
    }
  }
  const out = [pid]
  for (let i = 0; i < out.length; i++) out.push(...(children.get(out[i]!) ?? []))
  return out
}

/** A field of /proc/PID/status in kB, or null when the process is gone. */
function statusKb(pid: number, field: 'VmHWM' | 'VmRSS'): number | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8')
    return Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0)
  } catch (err) {
    if (isGone(err)) return null
    throw err
  }
}

/** utime + stime (own) and cutime + cstime (children) of /proc/PID/stat in clock ticks; null when it is gone. */
function cpuTicks(pid: number): { own: number; children: number } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // Fields 14–17 of stat(5), counted here from the state (field 3).
    const f = stat
      .slice(stat.lastIndexOf(')') + 2)
      .split(' ')
      .map(Number)
    return { own: f[11]! + f[12]!, children: f[13]! + f[14]! }
  } catch (err) {
    if (isGone(err)) return null
    throw err
  }
}

/** Whether the process is ralph's git helper (its command line carries the helper's name). */
function isGitHelper(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes(GIT_HELPER_ARG)
  } catch (err) {
    if (isGone(err)) return false
    throw err
  }
}

/** The kernel's clock ticks per second (USER_HZ: 100 on Linux). */
const TICKS_PER_SECOND = 100

export interface MemoryPeak {
  /** VmHWM of the ralph process itself, MB. */
  processPeakMb: number
  /** The largest sum of VmRSS over the process and its descendants in one sample, MB. */
  treePeakMb: number
  /** The most processes in the tree in one sample. */
  treeProcesses: number
  samples: number
  /** CPU seconds of the process itself, as of the last sample. */
  cpuSeconds: number
  /**
   * CPU seconds of its waited-for children (git, bubblewrap and what runs in it) and of its git helper with the git
   * processes it ran, as of the last sample.
   */
  childCpuSeconds: number
}

/** Samples `pid` every `everyMs` until stopped; stop() returns the peaks seen. */
export function sampleMemory(pid: number, everyMs = 200): { stop(): MemoryPeak } {
  let hwm = 0
  let treeKb = 0
  let processes = 0
  let samples = 0
  let ticks = { own: 0, children: 0 }
  const helpers = new Map<number, number>()
  const sample = () => {
    const own = statusKb(pid, 'VmHWM')
    if (own === null) return
    ticks = cpuTicks(pid) ?? ticks
    hwm = Math.max(hwm, own)
    const pids = tree(pid)
    for (const p of pids.filter(isGitHelper)) {
      const t = cpuTicks(p)
      if (t) helpers.set(p, t.own + t.children)
    }
    const rss = pids.reduce((sum, p) => sum + (statusKb(p, 'VmRSS') ?? 0), 0)
    treeKb = Math.max(treeKb, rss)
    processes = Math.max(processes, pids.length)
    samples++
  }
  sample()
  const timer = setInterval(sample, everyMs)
  return {
    stop: () => {
      clearInterval(timer)
      sample()
      const mb = (kb: number) => Math.round((kb / 1024) * 10) / 10
      return {
        processPeakMb: mb(hwm),
        treePeakMb: mb(treeKb),
        treeProcesses: processes,
        samples,
        cpuSeconds: ticks.own / TICKS_PER_SECOND,
        childCpuSeconds:
          (ticks.children + [...helpers.values()].reduce((a, b) => a + b, 0)) / TICKS_PER_SECOND,
      }
    },
  }
}

/** What the web host's build of the bench's queue came to. */
export interface WebHostRun {
  memory: MemoryPeak
  /** The server's resident memory once it was up, before the build (MB). */
  idleMb: number
  wallMs: number
  status: string
  message: string
  /** The most lanes the build reported at once. */
  lanesSeen: number
}

/**
 * `npm run web`'s server process (out/node/web.js, what scripts/web.mjs starts) on its own Ralph home: the project
 * opened and a build with `parallel` lanes started through its API (`queue.build`), its status polled until it ends,
 * the server's memory sampled throughout. The caller builds the renderer and the host first.
 */
export async function measureWebHost(
  dirs: { project: string; home: string },
  env: NodeJS.ProcessEnv,
  parallel: number,
): Promise<WebHostRun> {
  const root = new URL('..', import.meta.url).pathname
  const child = spawn(process.execPath, ['out/node/web.js', '--port', '0'], {
    cwd: root,
    env: { ...process.env, ...env, RALPH_HOME: dirs.home },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  try {
    const url = await new Promise<URL>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the web host did not start:\n${output}`)), 100_000)
      const onData = (chunk: Buffer) => {
        output += chunk.toString()
        const match = /(http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]+)/.exec(output)
        if (match) {
          clearTimeout(timer)
          resolve(new URL(match[1]!))
        }
      }
      child.stdout.on('data', onData)
      child.stderr.on('data', onData)
      child.on('exit', (code) => reject(new Error(`the web host exited with ${code}:\n${output}`)))
    })
    const call = async (name: string, input: unknown): Promise<Record<string, unknown>> => {
      const res = await fetch(`${url.origin}/api/call/${name}`, {
        method: 'POST',
        headers: { 'x-ralph-token': url.searchParams.get('token')!, 'content-type': 'application/json' },
        body: JSON.stringify(input),
      })
      const body = (await res.json()) as { ok: boolean; value: Record<string, unknown>; error?: unknown }
      if (!body.ok) throw new Error(`${name} failed: ${JSON.stringify(body.error)}`)
      return body.value
    }
    const idleMb = Math.round(((statusKb(child.pid!, 'VmRSS') ?? 0) / 1024) * 10) / 10
    const memory = sampleMemory(child.pid!)
    const started = performance.now()
    let peak: MemoryPeak
    let status: Record<string, unknown>
    let lanesSeen = 0
    try {
      const projectId = (await call('projects.open', { path: dirs.project })).id as number
      await call('queue.build', { projectId, parallel })
      for (;;) {
        status = await call('queue.buildStatus', { projectId })
        const lanes = (status.lanes as { state: LaneState }[] | undefined) ?? []
        lanesSeen = Math.max(lanesSeen, lanes.filter((l) => workingLaneStates.includes(l.state)).length)
        if (!status.running && status.result) break
        await new Promise((r) => setTimeout(r, 250))
      }
    } finally {
      peak = memory.stop()
    }
    const result = status.result as { status: string; message: string }
    return {
      memory: peak,
      idleMb,
      wallMs: performance.now() - started,
      status: result.status,
      message: result.message,
      lanesSeen,
    }
  } finally {
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve))
      child.kill('SIGTERM')
      await exited
    }
  }
}
