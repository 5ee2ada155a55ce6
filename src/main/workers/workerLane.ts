// What every remote backend's lane runner shares (issue #39): the lane's job made from the build's task, the
// worker's stdout read as the lane's loop events, the fetched result placed where a local lane's run leaves it, and
// the lane's result in runInLane's shape. The backends (dockerLane, kubernetesLane) only carry the job and the result.
import { AppError, isAppError } from '../../shared/errors'
import { loopEventSchema, taskFailReason, type LoopEvent } from '../../shared/loopEvents'
import type { WorkerResult } from '../../shared/workerJob'
import { moveLaneTo, type LaneRunInput, type LaneRunResult } from '../lanes'
import type { RunTaskResult } from '../loop'
import { snapshotTags } from '../snapshots'
import { noteFailure, type Logger } from '../workspace'
import { createJob, modelEndpoint, type CreatedJob } from './createJob'
import { jobMcpServers } from './jobMcp'
import { remoteSecretVar } from './remoteSecrets'
import type { FetchedResult } from './result'
import { WorkerRunRecord } from './workerRunRecord'

/** Labels on a lane's container or Job, beside the worker label: which lane and task it runs. */
export const LANE_LABEL = 'dev.ralph-studio.lane'
export const TASK_LABEL = 'dev.ralph-studio.task'

/** The build's task a lane's attempt runs: the job's queue id, attempt and criteria (absent: not a queue task). */
export interface LaneTask {
  taskId: string
  attempt: number
  /** The acceptance criteria as lines (`AC1 DET: …`), for display on the worker; the coordinator verifies them. */
  criteria: string[]
}

/** The lane's job in `out`: its base from the project's store, the task, no nonce and no key. */
export async function makeLaneJob(
  input: LaneRunInput,
  out: string,
  task: LaneTask | undefined,
  /** The ticked vault secrets by their variable (RALPH_SECRET_<NAME>): never in the job, only beside it. */
  secretEnv: Record<string, string>,
): Promise<CreatedJob> {
  const ticked = (name: string) => remoteSecretVar(name) in secretEnv
  return createJob({
    projectDir: input.projectDir,
    out,
    base: input.lane.marker.base,
    task: {
      number: input.task,
      id: task?.taskId ?? null,
      name: input.message.split('\n')[0]!.slice(0, 200),
      message: input.message,
      context: input.taskContext ?? null,
      criteria: task?.criteria ?? [],
      feedback: input.feedback ?? '',
      attempt: task?.attempt ?? 1,
    },
    lane: input.lane.marker.lane,
    settings: {
      maxIterations: input.maxIterations ?? null,
      engine: input.engine ?? null,
      waitForLimits: input.waitForLimits ?? true,
    },
    model: modelEndpoint(input.model),
    fastModel: modelEndpoint(input.fastModel),
    mcpServers: await jobMcpServers(input.projectDir, input.mcpServers ?? null, ticked),
    secrets: [input.model?.apiKey, input.fastModel?.apiKey, ...Object.values(secretEnv)],
    logger: input.logger,
  })
}

/**
 * The worker's stdout as the lane's: each loop event recorded in the user's project's store (the run row and its
 * card) and passed on to the build; `failed` closes the row of an attempt that ended without a result taken.
 */
export function workerStream(input: LaneRunInput): {
  line(line: string): void
  record: WorkerRunRecord
  failed(err: unknown): void
} {
  const n = input.lane.marker.lane
  const record = new WorkerRunRecord({
    runs: input.runs,
    projectId: input.projectId ?? null,
    projectPath: input.projectDir,
    lane: n,
  })
  return {
    record,
    line: (line) => {
      const event = loopEventOfLine(line, n, input.logger)
      if (!event) return
      try {
        record.take(event)
      } catch (err) {
        noteFailure(input.logger, `Lane ${n}'s worker event could not be recorded (${event.type})`, err)
      }
      input.emit(event)
    },
    failed: (err) =>
      record.closeUnfinished(
        isAppError(err, 'cancelled') ? 'stopped' : 'failed',
        err instanceof Error ? err.message : String(err),
      ),
  }
}

/**
 * A line of a worker's stdout as a loop event of the lane, or null: the worker's own events (`worker.*`) and lines
 * that are not events stay behind (one that looks like an event but is not one this build knows is noted).
 */
export function loopEventOfLine(line: string, lane: number, logger: Logger): LoopEvent | null {
  if (!line.startsWith('{')) return null
  let json: unknown
  try {
    json = JSON.parse(line)
  } catch (err) {
    noteFailure(logger, `Lane ${lane}'s worker printed a line that is not JSON`, err)
    return null
  }
  const type = (json as { type?: unknown } | null)?.type
  if (typeof type === 'string' && type.startsWith('worker.')) return null
  const event = loopEventSchema.safeParse(json)
  if (!event.success) {
    noteFailure(logger, `Lane ${lane}'s worker printed an event this build does not know`, event.error)
    return null
  }
  return event.data as LoopEvent
}

/**
 * The local lane at the task's post snapshot, with the lane store's task-N-pre/post tags on the fetched commits (its
 * store borrows the project's objects, where fetchWorkerResult put them): the build's verification reads both there.
 */
export async function positionLane(input: LaneRunInput, fetched: FetchedResult): Promise<void> {
  const { lane, task } = input
  if (fetched.post === null) return
  await moveLaneTo(lane, fetched.post)
  await lane.git.run(['update-ref', '--stdin'], {
    input:
      `update refs/tags/${snapshotTags.taskPre(task)} ${fetched.pre!}\n` +
      `update refs/tags/${snapshotTags.taskPost(task)} ${fetched.post}\n`,
  })
}

/** The worker's result as runInLane's. */
export function laneResult(
  input: LaneRunInput,
  result: WorkerResult,
  base: string,
  runId: number | null,
): LaneRunResult {
  const reason =
    result.reason === null ? undefined : (taskFailReason.safeParse(result.reason).data ?? 'error')
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
    ...(runId !== null ? { runId } : {}),
    baseCommit: base,
    preCommit: result.pre,
    postCommit: result.post,
    run,
  }
}

/** Stop reached the remote job: the lane ends as a stopped local lane does. */
export const laneStopped = (lane: number, what: string): AppError =>
  new AppError('cancelled', `Lane ${lane}'s ${what} was stopped.`)
