// A build's lane run as a container on a Docker engine (issue #39, DESIGN.md §18): the same input and result as
// `runInLane`, so the lanes build merges, verifies and applies it unchanged. The lane's job (its base from the
// project's store, the task, no nonce and no key) goes into a container running `ralph worker`; the worker's NDJSON
// events come back as the lane's events; its result is checked (fetchWorkerResult) and lands as
// refs/lanes/N/pre|post exactly where a local lane's run leaves them. The local lane is then moved to the task's
// post snapshot and tagged task-N-pre/post, so the build's verification runs here, with its own nonce.
//
// A worker fault — an engine that cannot be reached, a container killed or past its deadline, a result that is
// missing or refused — ends the lane with an error saying which, and nothing of it reaches the project's store.
import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { AppError } from '../../shared/errors'
import { loopEventSchema, type LoopEvent } from '../../shared/loopEvents'
import type { WorkerResult } from '../../shared/workerJob'
import { moveLaneTo, type LaneRunInput, type LaneRunResult } from '../lanes'
import type { FailReason, RunTaskResult } from '../loop'
import { snapshotTags } from '../snapshots'
import { noteFailure } from '../workspace'
import { containerLimits, type WorkersConfig } from './config'
import { createJob, modelEndpoint } from './createJob'
import { runContainerJob, type ContainerOutcome } from './docker'
import { connectDocker, type DockerConnection } from './dockerClient'
import { fetchWorkerResult, type FetchedResult } from './result'

/** Labels on a lane's container, beside the worker label: which project's lane and task it runs. */
export const LANE_LABEL = 'dev.ralph-studio.lane'
export const TASK_LABEL = 'dev.ralph-studio.task'

export interface DockerLaneOptions {
  config: WorkersConfig
  /** The engine; absent: the one DOCKER_HOST of the run's environment names. */
  connection?: DockerConnection
}

/** `runInLane` with the loop in a container: what LaneBuild calls for `--workers docker`. */
export function dockerLaneRunner(
  options: DockerLaneOptions,
): (input: LaneRunInput) => Promise<LaneRunResult> {
  return (input) => runInDockerLane(input, options)
}

export async function runInDockerLane(
  input: LaneRunInput,
  options: DockerLaneOptions,
): Promise<LaneRunResult> {
  const { lane, task, projectDir, logger } = input
  const n = lane.marker.lane
  const env = input.env ?? process.env
  const conn = options.connection ?? connectDocker(env)
  const scratch = await mkdtemp(join(tmpdir(), `ralph-docker-lane-${n}-`))
  try {
    const jobDir = join(scratch, 'job')
    const resultDir = join(scratch, 'result')
    const apiKey = input.model?.apiKey ?? null
    const created = await createJob({
      projectDir,
      out: jobDir,
      base: lane.marker.base,
      task: {
        number: task,
        id: null,
        name: input.message.split('\n')[0]!.slice(0, 200),
        message: input.message,
        context: input.taskContext ?? null,
        criteria: [],
        feedback: input.feedback ?? '',
        attempt: 1,
      },
      lane: n,
      settings: {
        maxIterations: input.maxIterations ?? null,
        engine: input.engine ?? null,
        waitForLimits: input.waitForLimits ?? true,
      },
      model: modelEndpoint(input.model),
      fastModel: modelEndpoint(input.fastModel),
      secrets: [apiKey, input.fastModel?.apiKey],
      logger,
    })
    await mkdir(resultDir, { mode: 0o700 })
    const outcome = await runContainerJob(conn, {
      image: options.config.image,
      command: ['ralph', 'worker', '--job', '/job', '--out', '/result'],
      // The model's key only here, in this job's environment: never in the job's files or the image.
      env: apiKey ? { RALPH_API_KEY: apiKey } : {},
      input: { fromDir: jobDir, to: '/job' },
      output: { from: '/result', intoDir: resultDir },
      limits: containerLimits(options.config),
      ...(options.config.network ? { network: options.config.network } : {}),
      labels: { [LANE_LABEL]: String(n), [TASK_LABEL]: String(task) },
      onLine: (line, stream) => {
        if (stream === 'stdout') forwardEvent(line, input.emit, n, logger)
      },
      ...(input.signal ? { signal: input.signal } : {}),
      log: logger,
    })
    if (outcome.ended === 'cancelled') throw new AppError('cancelled', `Lane ${n}'s container was stopped.`)
    const fetched = await fetchChecked(outcome, conn, options, {
      projectDir,
      resultDir,
      job: created.job,
      logger,
    })
    if (fetched.post !== null) await positionLane(input, fetched)
    return laneResult(input, fetched.result, created.job.base.commit)
  } finally {
    await rm(scratch, { recursive: true, force: true }).catch((err: unknown) =>
      noteFailure(logger, `The scratch folder of lane ${n}'s container job stays (${scratch})`, err),
    )
  }
}

/** The worker's result, refused with the reason when the container did not end with one that passes the checks. */
async function fetchChecked(
  outcome: ContainerOutcome,
  conn: DockerConnection,
  options: DockerLaneOptions,
  fetch: Parameters<typeof fetchWorkerResult>[0],
): Promise<FetchedResult> {
  const where = `the container ${outcome.containerId.slice(0, 12)} on ${conn.target.label}`
  const kept = outcome.kept ? ' It is kept on the engine for a look (ralph workers clean removes it).' : ''
  const said = outcome.stderrTail.trim() ? ` Its last words: ${outcome.stderrTail.trim().slice(-400)}` : ''
  if (outcome.ended === 'timed-out')
    throw new AppError(
      'task-failed',
      `Lane ${fetch.job.lane.number}'s worker ran past its ${options.config.timeoutMinutes} minutes in ${where} ` +
        `and was killed; nothing of it was merged.${kept}`,
    )
  if (!outcome.outputCopied)
    throw new AppError(
      'task-failed',
      `Lane ${fetch.job.lane.number}'s worker in ${where} ended (${exitWords(outcome.exitCode)}) without a ` +
        `result; nothing of it was merged.${said}${kept}`,
    )
  try {
    return await fetchWorkerResult(fetch)
  } catch (err) {
    const why = (err as Error).message
    throw new AppError(
      'invalid-input',
      `Lane ${fetch.job.lane.number}'s worker result from ${where} (${exitWords(outcome.exitCode)}) was refused: ` +
        `${why}${/nothing was fetched/i.test(why) ? '' : ' Nothing of it was merged.'}${said}${kept}`,
    )
  }
}

function exitWords(code: number | null): string {
  if (code === null) return 'killed'
  if (code === 137) return 'exit 137: killed'
  return `exit ${code}`
}

/** A line of the worker's stdout: a loop event goes on as the lane's; the worker's own and other lines do not. */
function forwardEvent(
  line: string,
  emit: LaneRunInput['emit'],
  lane: number,
  logger: LaneRunInput['logger'],
): void {
  if (!line.startsWith('{')) return
  let json: unknown
  try {
    json = JSON.parse(line)
  } catch (err) {
    noteFailure(logger, `Lane ${lane}'s worker printed a line that is not JSON`, err)
    return
  }
  const type = (json as { type?: unknown } | null)?.type
  if (typeof type === 'string' && type.startsWith('worker.')) return
  const event = loopEventSchema.safeParse(json)
  if (!event.success) {
    noteFailure(logger, `Lane ${lane}'s worker printed an event this build does not know`, event.error)
    return
  }
  emit(event.data as LoopEvent)
}

/**
 * The local lane at the task's post snapshot, with the lane store's task-N-pre/post tags on the fetched commits (its
 * store borrows the project's objects, where fetchWorkerResult put them): the build's verification reads both there.
 */
async function positionLane(input: LaneRunInput, fetched: FetchedResult): Promise<void> {
  const { lane, task } = input
  await moveLaneTo(lane, fetched.post!)
  await lane.git.run(['update-ref', '--stdin'], {
    input:
      `update refs/tags/${snapshotTags.taskPre(task)} ${fetched.pre!}\n` +
      `update refs/tags/${snapshotTags.taskPost(task)} ${fetched.post!}\n`,
  })
}

const failReasons: readonly string[] = [
  'gates',
  'stall',
  'no-progress',
  'max-iterations',
  'provider',
  'usage-limit',
  'cost-cap',
  'stopped',
  'interrupted',
  'error',
] satisfies FailReason[]

function laneResult(input: LaneRunInput, result: WorkerResult, base: string): LaneRunResult {
  const reason =
    result.reason === null
      ? undefined
      : ((failReasons.includes(result.reason) ? result.reason : 'error') as FailReason)
  const run: RunTaskResult = {
    status: result.status,
    task: result.task,
    iterations: result.iterations,
    message: result.message,
    costUsd: result.costUsd,
    ...(reason ? { reason } : {}),
    ...(result.status === 'needs-clarification' ? { question: result.message } : {}),
  }
  return {
    status: result.status,
    task: result.task,
    lane: input.lane.marker.lane,
    message: result.message,
    ...(reason ? { reason } : {}),
    costUsd: result.costUsd,
    baseCommit: base,
    preCommit: result.pre,
    postCommit: result.post,
    run,
  }
}
