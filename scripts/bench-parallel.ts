// `npm run bench:parallel`: issue #38's measures for parallel lanes, on a project of FILES files.
// - lane creation against a plain `git checkout` of the same tree (target ≤ 1.5×), and the disk per lane;
// - the real compiled CLI against a scripted model with a fixed latency per call: TASKS independent tasks built with
//   `--parallel LANES` and with `--parallel 1` in the same run (target: the lanes' wall time ≤ 0.35× the serial one),
//   with where the lanes' wall time goes;
// - a pair of tasks writing the same lines: one merges, the other reruns on the new base and merges (or escalates),
//   each verification sealed with a nonce of its own (counted from the model's verification requests);
// - the peak memory of the `ralph build --parallel LANES` process (VmHWM) and of its process tree (sampled RSS), and
//   of the app: the web host (`npm run web`'s server process) running the same build with LANES lanes via its API.
// Prints a table and writes bench-results/parallel-<time>.json.
// Usage: npx tsx scripts/bench-parallel.ts [--files 2000] [--rounds 7] [--latency 1500] [--tasks 8] [--lanes 4]
//        [--only lanes,build,pair (any of them)] [--cpu-prof DIR (each build's ralph process writes a CPU profile)]
import { existsSync, readFileSync, rmSync, mkdirSync, writeFileSync } from 'node:fs'
import { cpus, loadavg } from 'node:os'
import { dirname, join } from 'node:path'
import { ensureNodeBuilt } from './node-build.mjs'
import { ensureRendererBuilt } from './renderer-build.mjs'
import { cliEnv } from '../tests/integration/build/buildCliFixture'
import { measureWebHost, type WebHostRun } from './bench-parallel-memory'
import {
  makeTemplate,
  prepareBuild,
  runBuildCli,
  type BenchTask,
  type BuildRun,
} from './bench-parallel-build'
import { LANE_TARGET, measureLaneCreation } from './bench-parallel-lanes'
import { startScriptedModel, type ModelCall, type ScriptedModel } from './bench-parallel-model'
import { profileBuild, profileLines, type Profile } from './bench-parallel-profile'
import { median, round, settleDisk } from './snapshot-workload'

const argv = process.argv.slice(2)
const arg = (name: string): string | undefined => {
  const i = argv.indexOf(`--${name}`)
  return i === -1 ? undefined : argv[i + 1]
}
const FILES = Number(arg('files') ?? 2000)
const ROUNDS = Number(arg('rounds') ?? 7)
const LATENCY = Number(arg('latency') ?? 1500)
const TASKS = Number(arg('tasks') ?? 8)
const LANES = Number(arg('lanes') ?? 4)
const ONLY = arg('only')
const CPU_PROF = arg('cpu-prof')
const runs = (part: 'lanes' | 'build' | 'pair') => ONLY === undefined || ONLY.split(',').includes(part)
const BUILD_TARGET = 0.35

interface Row {
  what: string
  value: string
  /** What the figure is measured against; with `ok`, whether it was met. */
  target?: string
  ok?: boolean
  note?: string
}

const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`

/** The build ended as a complete build that merged (or built) every task, or why not. */
function completeOrWhy(run: BuildRun, tasks: number): string | null {
  const finished = run.events.at(-1)?.event
  if (run.code !== 0 || finished?.type !== 'build.finished' || finished.status !== 'complete')
    return `exit ${run.code}, ${JSON.stringify(finished ?? null)}; stderr: ${run.stderr.slice(-500)}`
  const done = run.events.filter(
    (e) => e.event.type === (run.parallel > 1 ? 'build.merged' : 'build.accepted'),
  ).length
  return done === tasks ? null : `${done} of ${tasks} tasks ${run.parallel > 1 ? 'merged' : 'accepted'}`
}

/** One build of `tasks` on a fresh copy of the template; the folders are removed after. */
async function build(
  template: string,
  model: ScriptedModel,
  tasks: BenchTask[],
  parallel: number,
): Promise<{ run: BuildRun; ids: string[]; read(file: string): string }> {
  const dirs = await prepareBuild(template, tasks)
  await settleDisk()
  const run = await runBuildCli(dirs, parallel, model.llm.baseUrl, { cpuProfDir: CPU_PROF })
  const contents = new Map(
    tasks.map((t) => {
      const path = join(dirs.project, t.file)
      return [t.file, existsSync(path) ? readFileSync(path, 'utf8') : '(missing)']
    }),
  )
  rmSync(dirname(dirs.project), { recursive: true, force: true })
  return { run, ids: dirs.ids, read: (file) => contents.get(file)!.trim() }
}

/** The same queue built by the web host with LANES lanes (started through its API); the folders removed after. */
async function webHostBuild(template: string, model: ScriptedModel, tasks: BenchTask[]): Promise<WebHostRun> {
  ensureRendererBuilt()
  const dirs = await prepareBuild(template, tasks)
  await settleDisk()
  try {
    const web = await measureWebHost(dirs, cliEnv(dirs.home, model.llm.baseUrl), LANES)
    if (web.status !== 'complete') throw new Error(`the web host's build ended ${web.status}: ${web.message}`)
    return web
  } finally {
    rmSync(dirname(dirs.project), { recursive: true, force: true })
  }
}

/** The verification requests of one build, per task (`file:word`), and how many distinct nonces sealed them. */
function verificationsOf(run: BuildRun, calls: ModelCall[]) {
  const mine = calls.filter(
    (c) => c.kind === 'verdict' && c.at >= run.startedAt && c.at <= run.startedAt + run.wallMs,
  )
  const per = new Map<string, { requests: number; nonces: Set<string> }>()
  for (const c of mine) {
    const entry = per.get(c.task ?? '?') ?? { requests: 0, nonces: new Set<string>() }
    entry.requests++
    entry.nonces.add(c.nonce!)
    per.set(c.task ?? '?', entry)
  }
  return per
}

async function main(): Promise<void> {
  const rows: Row[] = []
  const json: Record<string, unknown> = {
    files: FILES,
    latencyMs: LATENCY,
    tasks: TASKS,
    lanes: LANES,
    loadBefore: loadavg(),
    cpus: cpus().length,
  }
  const profiles: string[] = []

  if (runs('lanes')) {
    const lc = await measureLaneCreation(FILES, ROUNDS)
    const mb = (b: number) => `${(b / 1024 / 1024).toFixed(1)} MB`
    rows.push(
      {
        what: `create a lane (${FILES} files, .env copied)`,
        value: `${round(median(lc.laneMs)).toFixed(1)} ms`,
      },
      {
        what: 'plain git checkout into an empty folder',
        value: `${round(median(lc.plainMs)).toFixed(1)} ms`,
      },
      {
        what: 'ratio lane / plain checkout',
        value: `${lc.ratio.toFixed(2)}×`,
        target: `≤ ${LANE_TARGET}×`,
        ok: lc.ratio <= LANE_TARGET,
      },
      {
        what: "the lane's first snapshot (its task-N-pre)",
        value: `${round(median(lc.laneFirstSnapshotMs)).toFixed(1)} ms`,
      },
      {
        what: 'a snapshot of the unchanged project',
        value: `${round(median(lc.projectSnapshotMs)).toFixed(1)} ms`,
      },
      {
        what: 'disk per lane',
        value: mb(lc.disk.diskBytes),
        note: `${lc.disk.files} files, ${mb(lc.disk.bytes)} of content`,
      },
      {
        what: "  of which the lane's own store",
        value: `${(lc.laneStoreDisk.diskBytes / 1024).toFixed(0)} KB`,
        note: `${lc.laneStoreDisk.files} files: settings, index, alternates; no object copied`,
      },
    )
    json.laneCreation = { ...lc, rounds: ROUNDS, target: LANE_TARGET }
  }

  if (runs('build') || runs('pair')) {
    await ensureNodeBuilt({ who: 'bench:parallel' })
    const model = await startScriptedModel(LATENCY)
    const template = makeTemplate(FILES)
    try {
      // The pair first: it is also the CLI's and the lanes' warm-up before the timed builds.
      if (runs('pair')) {
        const pair: BenchTask[] = [
          { file: 'pair.txt', word: 'left' },
          { file: 'pair.txt', word: 'right' },
        ]
        const { run, ids, read } = await build(template, model, pair, 2)
        const types = (type: string) => run.events.filter((e) => e.event.type === type).map((e) => e.event)
        const merged = types('build.merged')
        const reruns = types('build.rerun')
        const escalated = types('build.skipped')
        const second = reruns[0]?.taskId
        const seconds = pair[ids.indexOf(second ?? '')]
        const v = verificationsOf(run, model.calls)
        const mine = seconds ? v.get(`${seconds.file}:${seconds.word}`) : undefined
        const every = [...v.values()]
        const fresh = every.every((e) => e.nonces.size === e.requests)
        const outcome =
          reruns.length === 1 && merged.length === 2 && merged[1]!.taskId === second
            ? `merged after a rerun; pair.txt = "${read('pair.txt')}"`
            : reruns.length === 1 && escalated.some((e) => e.taskId === second)
              ? 'escalated after a rerun'
              : `unexpected: ${merged.length} merged, ${reruns.length} reruns (${completeOrWhy(run, 2) ?? 'complete'})`
        const okOutcome = outcome.startsWith('merged') || outcome.startsWith('escalated')
        rows.push(
          {
            what: 'pair on the same lines: the second task',
            value: secs(run.wallMs),
            target: outcome,
            ok: okOutcome && (!outcome.startsWith('merged') || read('pair.txt') === seconds?.word),
          },
          {
            what: '  its verification requests (distinct nonces)',
            value: mine ? `${mine.requests} (${mine.nonces.size})` : '0',
            target: `sealed twice, each with a fresh nonce; every task: ${every.map((e) => `${e.requests}/${e.nonces.size}`).join(', ')}`,
            ok: (mine?.nonces.size ?? 0) >= 2 && fresh,
          },
        )
        json.pair = {
          wallMs: run.wallMs,
          code: run.code,
          outcome,
          reruns: reruns.length,
          merged: merged.map((m) => ({ taskId: m.taskId, task: m.task, verifiedAgain: m.verifiedAgain })),
          verifications: Object.fromEntries(
            [...v].map(([k, e]) => [k, { requests: e.requests, nonces: [...e.nonces] }]),
          ),
        }
      }

      if (runs('build')) {
        const tasks: BenchTask[] = Array.from({ length: TASKS }, (_, i) => ({
          file: `src/tasks/t${i + 1}.txt`,
          word: `word${i + 1}`,
        }))
        const lanes = await build(template, model, tasks, LANES)
        const serial = await build(template, model, tasks, 1)
        // The app's memory with the same lanes: the web host (`npm run web`'s server) building through its API.
        const web = await webHostBuild(template, model, tasks)
        const results: Record<string, unknown> = {}
        for (const b of [lanes, serial]) {
          const why = completeOrWhy(b.run, TASKS)
          const wrong = tasks.filter((t) => b.read(t.file) !== t.word).map((t) => t.file)
          if (why || wrong.length)
            throw new Error(
              `--parallel ${b.run.parallel} did not build the queue: ${why ?? `wrong ${wrong.join(', ')}`}`,
            )
          const profile: Profile = profileBuild(b.run, model.calls, LATENCY)
          profiles.push(...profileLines(profile, `--parallel ${b.run.parallel}`))
          results[`parallel${b.run.parallel}`] = {
            wallMs: b.run.wallMs,
            memory: b.run.memory,
            profile,
            // The build's events as they arrived (ms from its start), for a closer look at the profile.
            events: b.run.events
              .filter((e) => e.event.type !== 'llm.delta')
              .map((e) => ({
                at: Math.round(e.at - b.run.startedAt),
                type: e.event.type,
                lane: e.event.lane ?? null,
                ...(e.event.task === undefined ? {} : { task: e.event.task }),
                ...(e.event.taskId === undefined ? {} : { taskId: e.event.taskId }),
              })),
            verifications: Object.fromEntries(
              [...verificationsOf(b.run, model.calls)].map(([k, e]) => [k, e.requests]),
            ),
          }
        }
        const ratio = lanes.run.wallMs / serial.run.wallMs
        const calls = (run: BuildRun) =>
          model.calls.filter((c) => c.at >= run.startedAt && c.at <= run.startedAt + run.wallMs).length
        rows.push(
          {
            what: `${TASKS} independent tasks, --parallel 1 (${calls(serial.run)} calls × ${LATENCY} ms)`,
            value: secs(serial.run.wallMs),
          },
          {
            what: `${TASKS} independent tasks, --parallel ${LANES} (${calls(lanes.run)} calls)`,
            value: secs(lanes.run.wallMs),
          },
          {
            what: `ratio --parallel ${LANES} / --parallel 1`,
            value: `${ratio.toFixed(2)}×`,
            target: `≤ ${BUILD_TARGET}×`,
            ok: ratio <= BUILD_TARGET,
          },
          {
            what: `peak memory of ralph build --parallel ${LANES} (VmHWM)`,
            value: `${lanes.run.memory.processPeakMb} MB`,
            note: `--parallel 1: ${serial.run.memory.processPeakMb} MB`,
          },
          {
            what: '  its process tree (largest sampled RSS sum)',
            value: `${lanes.run.memory.treePeakMb} MB`,
            note: `up to ${lanes.run.memory.treeProcesses} processes (git, bwrap, checks); --parallel 1: ${serial.run.memory.treePeakMb} MB`,
          },
          {
            what: `peak memory of the web host, ${LANES} lanes via queue.build (VmHWM)`,
            value: `${web.memory.processPeakMb} MB`,
            note: `idle before the build ${web.idleMb} MB; ${web.lanesSeen} lanes seen at once; ${secs(web.wallMs)}, ${web.status}`,
          },
          {
            what: '  its process tree (largest sampled RSS sum)',
            value: `${web.memory.treePeakMb} MB`,
            note: `up to ${web.memory.treeProcesses} processes`,
          },
        )
        const cpu = (m: BuildRun['memory']) =>
          `${m.cpuSeconds.toFixed(1)} + ${m.childCpuSeconds.toFixed(1)} s`
        rows.push({
          what: 'CPU time of the build (ralph + its children)',
          value: cpu(lanes.run.memory),
          note: `--parallel 1: ${cpu(serial.run.memory)}; ${cpus().length} cores, load ${loadavg()[0]!.toFixed(1)} at the end`,
        })
        json.build = { ...results, webHost: web, ratio, target: BUILD_TARGET }
      }
    } finally {
      await model.close()
      rmSync(template, { recursive: true, force: true })
    }
  }

  for (const r of rows)
    console.log(
      r.what.padEnd(58),
      r.value.padStart(12),
      r.ok === undefined ? (r.note ?? '') : `${r.ok ? 'ok' : 'MISSED'} (${r.target})`,
    )
  if (profiles.length) console.log(`\nWhere the wall time goes:\n${profiles.join('\n')}`)
  json.rows = rows
  json.loadAfter = loadavg()
  json.at = new Date().toISOString()
  const root = join(import.meta.dirname, '..')
  mkdirSync(join(root, 'bench-results'), { recursive: true })
  const file = join(root, 'bench-results', `parallel-${Date.now()}.json`)
  writeFileSync(file, JSON.stringify(json, null, 2))
  console.log(`written ${file}`)
  if (rows.some((r) => r.ok === false)) process.exitCode = 1
}

await main()
