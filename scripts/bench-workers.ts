// `npm run bench:workers`: issue #39's measure. The same TASKS-task build as `npm run bench:parallel` (the real
// compiled CLI, the scripted model with a fixed latency per call, a project of FILES files) run twice in one go:
// `--workers docker` with JOBS jobs at once on a Docker engine (Podman's Docker-compatible service here, the worker
// image built locally with no registry), and `--workers local` with the same number of lanes. Prints the wall times
// and, per docker job, where its overhead goes: the lane and job bundle made, the container created, the bundle in,
// the container started until the worker's first event, and after the task the result out, the container removed,
// and the result checked and fetched until this machine's verification starts. The engine's steps are timed by a
// recording proxy in front of its socket (bench-workers-proxy.ts); the rest from the build's events.
// Writes bench-results/workers-<time>.json.
// Usage: npx tsx scripts/bench-workers.ts [--files 2000] [--latency 1500] [--tasks 8] [--jobs 4]
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { cpus, loadavg } from 'node:os'
import { dirname, join } from 'node:path'
import { cleanKeptContainers } from '../src/main/workers/docker'
import { connectDocker } from '../src/main/workers/dockerClient'
import { TASK_LABEL } from '../src/main/workers/dockerLane'
import { startPodman, podmanSkipReason } from '../tests/helpers/podman'
import {
  makeTemplate,
  prepareBuild,
  runBuildCli,
  type BenchTask,
  type BuildRun,
} from './bench-parallel-build'
import { startScriptedModel } from './bench-parallel-model'
import { startEngineProxy, type EngineCall } from './bench-workers-proxy'
import { ensureNodeBuilt } from './node-build.mjs'
import { median, settleDisk } from './snapshot-workload'
import { ensureLocalWorkerImage } from './worker-image-local'

const argv = process.argv.slice(2)
const arg = (name: string): string | undefined => {
  const i = argv.indexOf(`--${name}`)
  return i === -1 ? undefined : argv[i + 1]
}
const FILES = Number(arg('files') ?? 2000)
const LATENCY = Number(arg('latency') ?? 1500)
const TASKS = Number(arg('tasks') ?? 8)
const JOBS = Number(arg('jobs') ?? 4)

const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`
const ms = (v: number) => `${Math.round(v)} ms`

/** One job's steps in ms (null: not seen). */
interface JobSteps {
  task: number
  laneAndBundle: number | null
  create: number | null
  bundleIn: number | null
  bundleInBytes: number
  startToFirstEvent: number | null
  work: number | null
  bundleOut: number | null
  bundleOutBytes: number
  remove: number | null
  resultToVerify: number | null
  overhead: number | null
}

/** The build's events of task N: when its lane began, its first and last loop event, its verification's start. */
function taskTimes(run: BuildRun, task: number) {
  const of = (type: string) => run.events.filter((e) => e.event.type === type && e.event.task === task)
  const lane = of('build.lane')[0]
  const taskId = lane?.event.taskId
  const started = of('task.started')[0]
  const completed = of('task.completed')[0]
  const verify = run.events.find(
    (e) => e.event.type === 'verify.started' && e.event.taskId === taskId && e.at >= (completed?.at ?? 0),
  )
  return { lane: lane?.at, started: started?.at, completed: completed?.at, verify: verify?.at }
}

const span = (from: number | undefined, to: number | undefined) =>
  from === undefined || to === undefined ? null : to - from

/** Each docker job's steps, from the proxy's calls and the build's events. */
function dockerJobs(run: BuildRun, calls: EngineCall[]): JobSteps[] {
  const jobs: JobSteps[] = []
  for (const create of calls.filter((c) => c.created && c.start >= run.startedAt)) {
    const id = create.created!.id
    const task = Number(create.created!.labels[TASK_LABEL])
    const on = (method: string, suffix: string) =>
      calls.find((c) => c.method === method && c.path === `/containers/${id}${suffix}`)
    const put = on('PUT', '/archive')
    const start = on('POST', '/start')
    const get = on('GET', '/archive')
    const remove = on('DELETE', '')
    const t = taskTimes(run, task)
    const afterOut = Math.max(get?.end ?? 0, remove?.end ?? 0) || undefined
    jobs.push({
      task,
      laneAndBundle: span(t.lane, create.start),
      create: span(create.start, create.end),
      bundleIn: span(put?.start, put?.end),
      bundleInBytes: put?.bytesIn ?? 0,
      startToFirstEvent: span(start?.start, t.started),
      work: span(t.started, t.completed),
      bundleOut: span(get?.start, get?.end),
      bundleOutBytes: get?.bytesOut ?? 0,
      remove: span(remove?.start, remove?.end),
      resultToVerify: span(afterOut, t.verify),
      overhead:
        t.lane === undefined || t.started === undefined || t.completed === undefined || t.verify === undefined
          ? null
          : t.started - t.lane + (t.verify - t.completed),
    })
  }
  return jobs.sort((a, b) => a.task - b.task)
}

/** A local lane's overhead: its lane made until its loop's first event, and its last event until verification. */
function localOverheads(run: BuildRun): number[] {
  const tasks = run.events.filter((e) => e.event.type === 'build.lane').map((e) => e.event.task!)
  return tasks
    .map((task) => {
      const t = taskTimes(run, task)
      return t.lane === undefined ||
        t.started === undefined ||
        t.completed === undefined ||
        t.verify === undefined
        ? null
        : t.started - t.lane + (t.verify - t.completed)
    })
    .filter((v): v is number => v !== null)
}

function completeOrWhy(run: BuildRun): string | null {
  const finished = run.events.at(-1)?.event
  if (run.code !== 0 || finished?.type !== 'build.finished' || finished.status !== 'complete')
    return `exit ${run.code}, ${JSON.stringify(finished ?? null)}; stderr: ${run.stderr.slice(-800)}`
  const merged = run.events.filter((e) => e.event.type === 'build.merged').length
  return merged === TASKS ? null : `${merged} of ${TASKS} tasks merged`
}

async function main(): Promise<void> {
  if (podmanSkipReason) throw new Error(`bench:workers needs a Docker engine: ${podmanSkipReason}.`)
  await ensureNodeBuilt({ who: 'bench:workers' })
  const podman = await startPodman()
  const image = await ensureLocalWorkerImage(podman.docker)
  const proxy = await startEngineProxy(podman.dockerHost.replace(/^unix:\/\//, ''))
  const model = await startScriptedModel(LATENCY)
  const template = makeTemplate(FILES)
  const tasks: BenchTask[] = Array.from({ length: TASKS }, (_, i) => ({
    file: `src/tasks/t${i + 1}.txt`,
    word: `word${i + 1}`,
  }))
  const build = async (workers: 'local' | 'docker'): Promise<BuildRun> => {
    const dirs = await prepareBuild(template, tasks)
    if (workers === 'docker') {
      const file = join(dirs.project, '.ralph', 'config.json')
      const config = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as object) : {}
      // The scripted model listens on the host's 127.0.0.1: the containers share the host's network.
      const settings = { backend: 'docker', image, network: 'host', cpus: 1, memoryMb: 1024 }
      writeFileSync(file, JSON.stringify({ ...config, workers: settings }))
    }
    await settleDisk()
    const run = await runBuildCli(dirs, JOBS, model.llm.baseUrl, {
      args: ['--workers', workers],
      env: { DOCKER_HOST: proxy.dockerHost },
    })
    const why = completeOrWhy(run)
    const wrong = tasks.filter((t) => {
      const path = join(dirs.project, t.file)
      return !existsSync(path) || readFileSync(path, 'utf8').trim() !== t.word
    })
    rmSync(dirname(dirs.project), { recursive: true, force: true })
    if (why || wrong.length)
      throw new Error(`--workers ${workers} did not build the queue: ${why ?? `wrong ${wrong.length} files`}`)
    return run
  }
  try {
    // Local first: it is also the CLI's warm-up before the docker build.
    const local = await build('local')
    const docker = await build('docker')
    const jobs = dockerJobs(docker, proxy.calls)
    const med = (pick: (j: JobSteps) => number | null) => {
      const values = jobs.map(pick).filter((v): v is number => v !== null)
      return values.length ? median(values) : NaN
    }
    const kb = (b: number) => `${(b / 1024).toFixed(0)} KB`
    const rows: [string, string, string][] = [
      [`${TASKS} tasks, --workers local, ${JOBS} lanes`, secs(local.wallMs), ''],
      [`${TASKS} tasks, --workers docker, ${JOBS} jobs`, secs(docker.wallMs), ''],
      ['ratio docker / local', `${(docker.wallMs / local.wallMs).toFixed(2)}×`, ''],
      [
        'per-job overhead, docker (median)',
        ms(med((j) => j.overhead)),
        'lane made → first event, last event → verify',
      ],
      ['per-lane overhead, local (median)', ms(median(localOverheads(local))), 'the same spans'],
      [
        '  docker: lane and job bundle made',
        ms(med((j) => j.laneAndBundle)),
        'build.lane → container create',
      ],
      ['  docker: container create', ms(med((j) => j.create)), 'POST /containers/create'],
      [
        '  docker: bundle in',
        ms(med((j) => j.bundleIn)),
        `PUT /containers/ID/archive, ${kb(med((j) => j.bundleInBytes))} (tar of the job)`,
      ],
      [
        '  docker: container start → first worker event',
        ms(med((j) => j.startToFirstEvent)),
        'start, node boots, the worker unpacks the job',
      ],
      ['  docker: the task in the container', ms(med((j) => j.work)), `${LATENCY} ms per model call`],
      [
        '  docker: bundle out',
        ms(med((j) => j.bundleOut)),
        `GET /containers/ID/archive, ${kb(med((j) => j.bundleOutBytes))} (result bundle and transcript)`,
      ],
      ['  docker: container remove', ms(med((j) => j.remove)), 'DELETE /containers/ID'],
      [
        '  docker: result checked and fetched → verify',
        ms(med((j) => j.resultToVerify)),
        'bundle checked, fetched into the store, lane moved',
      ],
      [
        'peak memory of ralph build (VmHWM)',
        `${docker.memory.processPeakMb} MB`,
        `docker; local: ${local.memory.processPeakMb} MB (containers are the engine's, not counted)`,
      ],
    ]
    for (const [what, value, note] of rows) console.log(what.padEnd(48), value.padStart(10), note)
    const root = join(import.meta.dirname, '..')
    mkdirSync(join(root, 'bench-results'), { recursive: true })
    const out = join(root, 'bench-results', `workers-${Date.now()}.json`)
    writeFileSync(
      out,
      JSON.stringify(
        {
          ...{ files: FILES, latencyMs: LATENCY, tasks: TASKS, jobs: JOBS, cpus: cpus().length },
          local: { wallMs: local.wallMs, memory: local.memory, overheadsMs: localOverheads(local) },
          docker: { wallMs: docker.wallMs, memory: docker.memory, jobs },
          engineCalls: proxy.calls.filter((c) => c.start >= docker.startedAt),
          rows,
          loadAfter: loadavg(),
          at: new Date().toISOString(),
        },
        null,
        2,
      ),
    )
    console.log(`written ${out}`)
  } finally {
    await model.close()
    await cleanKeptContainers(connectDocker({ DOCKER_HOST: podman.dockerHost }), {}).catch((err: unknown) =>
      console.error('bench:workers: kept containers could not be cleaned', err),
    )
    await proxy.close()
    await podman.stop()
    rmSync(template, { recursive: true, force: true })
  }
}

await main()
