// A build's lane run as a container on a Docker engine (issue #39, DESIGN.md §18): the same input and result as
// `runInLane`, so the lanes build merges, verifies and applies it unchanged. The lane's job (its base from the
// project's store, the task, no nonce and no key) goes into a container running `ralph worker`; the worker's NDJSON
// events come back as the lane's events; its result is checked (fetchWorkerResult) and lands as
// refs/lanes/N/pre|post exactly where a local lane's run leaves them. The local lane is then moved to the task's
// post snapshot and tagged task-N-pre/post, so the build's verification runs here, with its own nonce.
//
// A worker fault — an engine that cannot be reached, a container killed or past its deadline, a result that is
// missing or refused — ends the lane with a WorkerFault saying which (the runner retries it once), and nothing of it
// reaches the project's store.
import { access, mkdir, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { isAppError } from '../../shared/errors'
import { workerFiles } from '../../shared/workerJob'
import type { LaneRunInput, LaneRunResult } from '../lanes'
import { noteFailure } from '../workspace'
import { containerLimits, type WorkersConfig } from './config'
import { runContainerJob, type ContainerOutcome } from './docker'
import { connectDocker, type DockerConnection } from './dockerClient'
import { dockerWhere } from './dockerHost'
import { fetchWorkerResult, type FetchedResult } from './result'
import { classifyJobEnd, WorkerFault } from './workerFault'
import {
  LANE_LABEL,
  TASK_LABEL,
  laneResult,
  laneStopped,
  makeLaneJob,
  positionLane,
  workerStream,
  type LaneTask,
} from './workerLane'

export { LANE_LABEL, TASK_LABEL }

export interface DockerLaneOptions {
  config: WorkersConfig
  /** The engine; absent: the one `config.dockerHost`, else DOCKER_HOST of the run's environment, names. */
  connection?: DockerConnection
  /** The build's task (queue id, attempt, criteria) for the job. */
  task?: LaneTask
  /** Told where the attempt runs (`docker: host`) once the engine is known, before the container is made. */
  placed?: (where: string) => void
  /** Vault secrets ticked for remote workers, by name: the job's environment gets them (never its files). */
  secretEnv?: Record<string, string>
}

/** The engine a lane's containers run on: the config's `dockerHost` over DOCKER_HOST. */
export function laneDockerConnection(config: WorkersConfig, env: NodeJS.ProcessEnv): DockerConnection {
  return connectDocker(env, config.dockerHost)
}

export async function runInDockerLane(
  input: LaneRunInput,
  options: DockerLaneOptions,
): Promise<LaneRunResult> {
  const { lane, task, logger } = input
  const n = lane.marker.lane
  const conn = options.connection ?? laneDockerConnection(options.config, input.env ?? process.env)
  const where = dockerWhere(conn.target)
  options.placed?.(where)
  const scratch = await mkdtemp(join(tmpdir(), `ralph-docker-lane-${n}-`))
  const events = workerStream(input)
  try {
    const jobDir = join(scratch, 'job')
    const resultDir = join(scratch, 'result')
    const apiKey = input.model?.apiKey ?? null
    const secretEnv = options.secretEnv ?? {}
    const created = await makeLaneJob(input, jobDir, options.task, secretEnv)
    await mkdir(resultDir, { mode: 0o700 })
    let outcome: ContainerOutcome
    try {
      outcome = await runContainerJob(conn, {
        image: options.config.image,
        command: ['ralph', 'worker', '--job', '/job', '--out', '/result'],
        // The model's key and the ticked vault secrets only here, in this job's environment: never in its files.
        env: { ...secretEnv, ...(apiKey ? { RALPH_API_KEY: apiKey } : {}) },
        input: { fromDir: jobDir, to: '/job' },
        output: { from: '/result', intoDir: resultDir },
        limits: containerLimits(options.config),
        ...(options.config.network ? { network: options.config.network } : {}),
        labels: { [LANE_LABEL]: String(n), [TASK_LABEL]: String(task) },
        onLine: (line, stream) => {
          if (stream === 'stdout') events.line(line)
        },
        ...(input.signal ? { signal: input.signal } : {}),
        log: logger,
      })
    } catch (err) {
      if (input.signal?.aborted || isAppError(err, 'cancelled')) throw laneStopped(n, 'container')
      throw new WorkerFault('unreachable', where, (err as Error).message, { cause: err })
    }
    if (outcome.ended === 'cancelled') throw laneStopped(n, 'container')
    const fetched = await fetchChecked(outcome, conn, options, where, {
      projectDir: input.projectDir,
      resultDir,
      job: created.job,
      logger,
    })
    await positionLane(input, fetched)
    return laneResult(input, fetched.result, created.job.base.commit, events.record.runId)
  } catch (err) {
    events.failed(err)
    throw err
  } finally {
    await rm(scratch, { recursive: true, force: true }).catch((err: unknown) =>
      noteFailure(logger, `The scratch folder of lane ${n}'s container job stays (${scratch})`, err),
    )
  }
}

/** The worker's result, or the fault (classifyJobEnd) of a container that did not end with one that passes the checks. */
async function fetchChecked(
  outcome: ContainerOutcome,
  conn: DockerConnection,
  options: DockerLaneOptions,
  where: string,
  fetch: Parameters<typeof fetchWorkerResult>[0],
): Promise<FetchedResult> {
  const lane = fetch.job.lane.number
  const container = `the container ${outcome.containerId.slice(0, 12)} on ${conn.target.label}`
  const kept = outcome.kept ? ' It is kept on the engine for a look (ralph workers clean removes it).' : ''
  const said = outcome.stderrTail.trim() ? ` Its last words: ${outcome.stderrTail.trim().slice(-400)}` : ''
  const hasResult =
    outcome.outputCopied &&
    (await access(join(fetch.resultDir, workerFiles.result)).then(
      () => true,
      () => false,
    ))
  let fetched: FetchedResult | null = null
  let refused: Error | null = null
  if (hasResult && outcome.ended !== 'timed-out')
    fetched = await fetchWorkerResult(fetch).catch((err: unknown) => {
      refused = err as Error
      return null
    })
  const fault = classifyJobEnd({
    stopped: false,
    engineFailed: false,
    pastDeadline: outcome.ended === 'timed-out',
    result: fetched ? 'taken' : refused ? 'refused' : 'missing',
  })
  if (fault === null && fetched) return fetched
  const why =
    fault === 'deadline'
      ? `Lane ${lane}'s worker ran past its ${options.config.timeoutMinutes} minutes in ${container} and was ` +
        `killed; nothing of it was merged.${kept}`
      : fault === 'bad-result'
        ? `Lane ${lane}'s worker result from ${container} (${exitWords(outcome.exitCode)}) was refused: ` +
          `${refused!.message}${/nothing was fetched/i.test(refused!.message) ? '' : ' Nothing of it was merged.'}` +
          `${said}${kept}`
        : `Lane ${lane}'s worker in ${container} ended (${exitWords(outcome.exitCode)}) without a result; ` +
          `nothing of it was merged.${said}${kept}`
  throw new WorkerFault(fault ?? 'died', where, why)
}

function exitWords(code: number | null): string {
  if (code === null) return 'killed'
  if (code === 137) return 'exit 137: killed'
  return `exit ${code}`
}
