// One queue task's lifecycle in a lane (issue #38): the serial loop (`runTask`) runs unchanged with the lane's work
// folder as its project, while the run row and usage belong to the user's project (so its chat shows the card, with
// the lane's number), the lane's number and ports are in every sandboxed command's environment, the lane's setup
// command runs before the first iteration, and the task's snapshots are fetched into the project's store as
// `refs/lanes/<task>/pre|post` for the merge. The user's folder and its store's tags are never written here.
import { readFile, realpath } from 'node:fs/promises'
import { join } from 'node:path'
import { AppError } from '../../shared/errors'
import { nextTaskNumber, RalphState, runTask, type RunTaskInput, type RunTaskResult } from '../loop'
import { SnapshotEngine, storePaths } from '../snapshots'
import { checkProjectFolder, ifMissing, noteFailure, type Logger } from '../workspace'
import { readLanesConfig } from './config'
import { fetchLaneSnapshots } from './laneFetch'
import type { Lane } from './laneCopy'
import { runLaneSetup } from './laneSetup'
import { laneEnv } from './ports'

/** What the loop gets as for a serial task, but the project, which is the user's (the lane runs in `lane`). */
export type LaneRunInput = Omit<
  RunTaskInput,
  'resume' | 'newTask' | 'taskLock' | 'keepTaskLock' | 'snapshotIndex' | 'recordAs' | 'beforeIterations'
> & {
  /** The user's project: its run rows get the task, its store the lane's snapshots. */
  projectDir: string
  /** A ready lane (createLane) of this project. */
  lane: Lane
  /** The task number the build reserved for this task; the lane's task-N-pre and task-N-post carry it. */
  task: number
}

export interface LaneRunResult {
  status: RunTaskResult['status']
  task: number
  lane: number
  message: string
  reason?: RunTaskResult['reason']
  costUsd: number
  runId?: number
  /** The snapshot commit the lane was checked out from. */
  baseCommit: string
  /** The lane's task-N-pre and task-N-post, now `refs/lanes/N/pre|post` of the project's store (null: none). */
  preCommit: string | null
  postCommit: string | null
  /** The loop's own result (receipt, iterations, question …). */
  run: RunTaskResult
}

/**
 * Runs the task in the lane and brings its snapshots back. The caller (the build) holds the user's project's task
 * lock meanwhile: with it, another host's crash recovery of the project leaves the lane's running row alone.
 */
export async function runInLane(input: LaneRunInput): Promise<LaneRunResult> {
  const { lane, task, projectDir: given, ...loop } = input
  const projectDir = checkProjectFolder(given)
  const n = lane.marker.lane
  if (lane.marker.state !== 'ready')
    throw new AppError(
      'invalid-input',
      `Lane ${n} was not finished being made: remove it (ralph lanes clean).`,
    )
  await assertLaneOf(lane, projectDir)
  await reserveTaskNumber(lane.workDir, n, task, input.logger)
  const { setup } = await readLanesConfig(projectDir)
  const env = { ...(input.env ?? process.env), ...laneEnv(n) }
  const run = await runTask({
    ...loop,
    projectDir: lane.workDir,
    env,
    newTask: true,
    recordAs: { projectPath: projectDir, lane: n },
    ...(setup
      ? {
          beforeIterations: () =>
            runLaneSetup({
              workDir: lane.workDir,
              lane: n,
              command: setup,
              env,
              signal: input.signal,
              logger: input.logger,
            }),
        }
      : {}),
  })
  if (run.task !== task)
    noteFailure(
      input.logger,
      `Lane ${n} ran task ${run.task}, not the reserved ${task}`,
      new Error('task number'),
    )
  const fetched = await fetchLaneSnapshots({ projectDir, laneStoreDir: lane.storeDir, task: run.task })
  return {
    status: run.status,
    task: run.task,
    lane: n,
    message: run.message,
    ...(run.reason ? { reason: run.reason } : {}),
    costUsd: run.costUsd,
    ...(run.runId ? { runId: run.runId } : {}),
    baseCommit: lane.marker.base,
    preCommit: fetched.pre,
    postCommit: fetched.post,
    run,
  }
}

/**
 * Sets the lane's task counter so the loop's `nextTaskNumber` gives `task`: the build numbers the queue's tasks, and
 * a lane holds one task. A lane whose store has that task's snapshots already is refused (make a fresh lane).
 */
async function reserveTaskNumber(workDir: string, lane: number, task: number, logger: Logger): Promise<void> {
  if (!Number.isSafeInteger(task) || task < 1) throw new RangeError(`"${task}" is not a task number.`)
  const state = new RalphState(workDir)
  await state.setTaskCounter(task - 1)
  const next = await nextTaskNumber(state, new SnapshotEngine({ projectDir: workDir, logger }))
  if (next !== task)
    throw new AppError(
      'busy',
      `Lane ${lane} holds snapshots of task ${next - 1} already, so it cannot run task ${task}: a lane runs one ` +
        'task. Remove it (ralph lanes clean) and make a fresh one.',
    )
}

/** The lane borrows this project's store: a lane of another project is refused before anything runs. */
async function assertLaneOf(lane: Lane, projectDir: string): Promise<void> {
  const file = join(lane.storeDir, 'objects', 'info', 'alternates')
  const borrowed = (await readFile(file, 'utf8').catch(ifMissing(''))).trim()
  const objects = await realpath(join(storePaths(projectDir).gitDir, 'objects')).catch(ifMissing(null))
  if (objects === null || borrowed !== objects)
    throw new AppError(
      'invalid-input',
      `Lane ${lane.marker.lane} (${lane.dir}) was not made from ${projectDir}'s snapshots: make a lane of this project.`,
    )
}
