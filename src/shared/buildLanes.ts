import { z } from 'zod'

/**
 * The lanes of a parallel build (`--parallel` > 1, DESIGN.md §18) as the Queue panel and the chat show them: per
 * lane the task it runs, its iteration and step, and where its merge stands. Folded from the build's events by
 * `foldLane` (pure), which `applyBuildEvent` calls for every event.
 */

/** At most this many lanes build at once (issue #38; the core's `MAX_PARALLEL` is the same number). */
export const MAX_BUILD_LANES = 8

/**
 * Where a lane's task stands. Working: `building` (its loop runs), `verifying` (in its lane), `waiting` (verified,
 * waiting for its turn to merge), `verifying-merged` (merged cleanly, verified again on the merged tree). Ended:
 * `merged` (applied to the project), `rerun` (its merged tree failed verification: it runs again on the new
 * base), `conflict` (its changes conflicted: it runs again on the new base), `rejected` (its verification in the
 * lane failed: tried again), `escalated`, `failed`, `stopped`.
 */
export const laneStateSchema = z.enum([
  'building',
  'verifying',
  'waiting',
  'verifying-merged',
  'merged',
  'rerun',
  'conflict',
  'rejected',
  'escalated',
  'failed',
  'stopped',
])
export type LaneState = z.infer<typeof laneStateSchema>

/** The states in which a lane is still held by its task. */
export const workingLaneStates: readonly LaneState[] = [
  'building',
  'verifying',
  'waiting',
  'verifying-merged',
]

export const buildLaneSchema = z.object({
  lane: z.number().int(),
  taskId: z.string(),
  name: z.string(),
  /** The lifecycle task number reserved for this attempt (task-N-pre/post once merged). */
  task: z.number().int(),
  attempt: z.number().int(),
  /** The iteration its loop is in, and the most it may take; null before the first. */
  iteration: z.number().int().nullable(),
  maxIterations: z.number().int().nullable(),
  step: z.string(),
  state: laneStateSchema,
  /** Why it runs again (a conflict, or the merged tree's verdict), or why it failed. */
  reason: z.string().nullable(),
  /** What the attempt has spent so far (its run's recorded model calls, verifications included); null if unknown. */
  spentUsd: z.number().nullable(),
  /** Where its attempt runs (`local`, `docker: host`, `k8s: namespace/job`); null until the build says. */
  where: z.string().nullable().default(null),
  /** The placement this one retries after a worker fault (where it was, and the fault in one sentence), or null. */
  retryOf: z.object({ where: z.string(), fault: z.string() }).nullable().default(null),
})
export type BuildLane = z.infer<typeof buildLaneSchema>

/** The fields of a build event a lane is found by and changed with (the contract's event types narrow these). */
type LaneEvent = { type: string; taskId?: unknown; task?: unknown } & Record<string, unknown>

const isWorking = (l: BuildLane) => workingLaneStates.includes(l.state)

/** The working lane an event belongs to: by its queue task id, else by its lifecycle task number. */
function laneOf(lanes: readonly BuildLane[], e: LaneEvent): BuildLane | undefined {
  const byId = typeof e.taskId === 'string' ? lanes.filter((l) => l.taskId === e.taskId) : []
  if (byId.length > 0) return byId.find(isWorking) ?? byId.at(-1)
  return typeof e.task === 'number' ? lanes.find((l) => l.task === e.task) : undefined
}

const replace = (lanes: readonly BuildLane[], old: BuildLane, next: BuildLane): BuildLane[] =>
  lanes.map((l) => (l === old ? next : l))

/** What an event does to the lane it belongs to; null: nothing beyond the step. */
function laneChange(l: BuildLane, e: LaneEvent): Partial<BuildLane> | null {
  switch (e.type) {
    case 'build.attempt':
      return { name: String(e.name), attempt: Number(e.attempt), step: 'Starting' }
    // The card shows the iteration beside the attempt: the step says what happens in it, not its number again.
    case 'iteration.started':
      return {
        iteration: Number(e.iteration ?? 1),
        maxIterations: Number(e.maxIterations),
        step: e.phase === 'plan' ? 'Planning the changes' : 'Making the changes',
      }
    case 'tool.called':
      return { iteration: Number(e.iteration ?? l.iteration ?? 1), step: `Tool: ${String(e.name)}` }
    case 'build.worker': {
      const retry = e.retryOf as { where?: unknown; fault?: unknown } | undefined
      return {
        where: String(e.where),
        retryOf: retry ? { where: String(retry.where), fault: String(retry.fault) } : null,
      }
    }
    case 'verify.started':
      // A lane verified in its own copy waits for its merge; its second verification is on the merged tree.
      return l.state === 'waiting'
        ? { state: 'verifying-merged', step: 'Verifying again on the merged tree' }
        : { state: 'verifying' }
    case 'verify.completed':
      if (l.state === 'verifying-merged')
        return e.outcome === 'FAIL'
          ? { step: 'FAIL on the merged tree' }
          : { step: `${String(e.outcome)} on the merged tree: applying` }
      return e.outcome === 'FAIL'
        ? { state: 'rejected', step: 'Verification FAIL: trying again' }
        : { state: 'waiting', step: `${String(e.outcome)}: waiting to merge` }
    case 'build.merged':
      return {
        state: 'merged',
        step: e.verifiedAgain ? 'Merged: verified again on the merged tree' : 'Merged',
      }
    case 'build.rerun':
      // A FAIL on the merged tree came with a second verification; a conflict stops before one.
      return l.state === 'verifying-merged'
        ? { state: 'rerun', step: 'Runs again on the new base', reason: String(e.reason) }
        : { state: 'conflict', step: 'Conflict: runs again on the new base', reason: String(e.reason) }
    case 'build.rejected':
      return isWorking(l) || l.state === 'rejected' ? { state: 'rejected', reason: String(e.reason) } : null
    case 'build.notification':
      return e.event === 'escalation' && l.state !== 'merged'
        ? { state: 'escalated', step: 'Escalated: waits for you', reason: String(e.message) }
        : null
    case 'task.failed':
      return isWorking(l) ? { state: 'failed', step: 'Failed', reason: String(e.message) } : null
    default:
      return null
  }
}

/**
 * Folds one build event into the lanes (pure). `step` is the step an event puts a task at (the same words as a
 * serial build's), or null. A new lane for a task replaces whatever that lane number or that task showed before.
 */
export function foldLane(
  lanes: readonly BuildLane[],
  e: LaneEvent,
  step: string | null,
  names: ReadonlyMap<string, string>,
): readonly BuildLane[] {
  if (e.type === 'build.lane') {
    const taskId = String(e.taskId)
    const lane: BuildLane = {
      lane: Number(e.lane),
      taskId,
      name: names.get(taskId) ?? taskId,
      task: Number(e.task),
      attempt: Number(e.attempt),
      iteration: null,
      maxIterations: null,
      step: 'Making the lane',
      state: 'building',
      reason: null,
      spentUsd: null,
      where: null,
      retryOf: null,
    }
    const kept = lanes.filter((l) => l.lane !== lane.lane && l.taskId !== taskId)
    return [...kept, lane].sort((a, b) => a.lane - b.lane)
  }
  if (e.type === 'build.finished') {
    const stopped = e.status !== 'complete'
    return stopped
      ? lanes.map((l) => (isWorking(l) ? { ...l, state: 'stopped' as const, step: 'Stopped' } : l))
      : lanes
  }
  const l = laneOf(lanes, e)
  if (!l) return lanes
  const change = laneChange(l, e)
  const stepNow = change?.step ?? (isWorking(l) && step ? step : null)
  if (!change && stepNow === null) return lanes
  return replace(lanes, l, { ...l, ...change, ...(stepNow === null ? {} : { step: stepNow }) })
}

/** The lanes a build holds right now (working ones). */
export const workingLanes = (lanes: readonly BuildLane[]): BuildLane[] => lanes.filter(isWorking)
