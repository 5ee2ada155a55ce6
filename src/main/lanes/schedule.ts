// The lanes scheduler's decisions, apart from their effects (issue #38): which queue tasks start now and in which
// lane, why the others wait, and the order finished tasks merge in. The build's orchestration asks again after
// every change (a task started, finished, merged, failed, escalated) and carries the answer out.
import type { QueueView, TaskView } from '../../shared/queue'
import { MAX_PARALLEL } from './config'
import { assertLaneNumber } from './ports'

/** What the scheduler reads of a queue task. */
export type QueueTask = Pick<TaskView, 'id' | 'deps' | 'status'>

/**
 * A task that holds a lane. `running`: its loop works in the lane. `finished`: it passed its gates and waits to
 * merge. `merging`: being merged onto the integration state (and verified again on the merged tree, in its lane).
 */
export interface TaskInLane {
  taskId: string
  lane: number
  state: 'running' | 'finished' | 'merging'
  /** When it finished (ms on any one clock), for `finished` and `merging`: the merge queue is first finished first. */
  finishedAt?: number
}

export interface ScheduleInput {
  /**
   * EVERY task of the queue, in build order (`queryState`'s tasks ordered by its `order`, the rest after). A
   * dependency that is not among them was accepted and removed from the file, so it counts as merged.
   */
  tasks: readonly QueueTask[]
  /**
   * Tasks merged during this build (PASS on the merged tree). A task `done` in the queue but not here is finished
   * and not accepted: its dependants wait.
   */
  merged: ReadonlySet<string>
  /**
   * The tasks that hold a lane. A lane is held from the task's start until its task is merged or abandoned and the
   * lane removed, so `parallel` bounds lanes on disk (and port blocks): running and waiting to merge alike. A merged
   * task may still be listed while its lane is being removed: its lane stays taken.
   */
  inLanes: readonly TaskInLane[]
  /** Tasks that wait for a person (escalated in this build or an earlier one). */
  escalated: ReadonlySet<string>
  /** Tasks this build does not start for another reason of its own. */
  skipped: ReadonlySet<string>
  /** Lanes at once, 1–8. */
  parallel: number
}

export interface LaneStart {
  taskId: string
  lane: number
}

export type HoldKind =
  /** The task itself is escalated or skipped. */
  | 'escalated'
  | 'skipped'
  /** A dependency (or one of its own) is escalated or skipped: it will not be merged until a person acts. */
  | 'waits-for-person'
  /** A dependency is not merged yet (not started, building, waiting to merge, merging, or done and not accepted). */
  | 'waits-for-merge'
  /** Ready, but every lane is taken. */
  | 'no-free-lane'

export interface HeldTask {
  taskId: string
  kind: HoldKind
  /** The task's own dependencies it waits for (empty for escalated, skipped, no-free-lane). */
  waitsFor: string[]
  /** A sentence going on from the task's id, as `build.skipped` reasons do: "depends on t-a, which …". */
  reason: string
}

export interface MergeHeld {
  taskId: string
  waitsFor: string[]
  reason: string
}

export interface Schedule {
  /** Tasks to start now, in build order, each in the lowest free lane. */
  start: LaneStart[]
  /** Pending tasks that do not start now and why, in build order (tasks already in a lane are not listed). */
  held: HeldTask[]
  /** Lanes another task could start in now, once `start` has taken its lanes (lowest first). */
  freeLanes: number[]
  /**
   * Finished tasks in the order they merge: the one merging now first, then first finished first, each after any
   * of its dependencies that is ahead of it in the queue.
   */
  mergeQueue: string[]
  /** The task to merge now: null while one is merging (one merge at a time) or when none can. */
  mergeNext: string | null
  /** Finished tasks that cannot merge yet: a dependency neither merged nor ahead of them in the queue. */
  mergeHeld: MergeHeld[]
}

/**
 * The scheduler's `tasks` from a queue view: the pending tasks in build order (`order`), then every other task in
 * file order (done ones, and pending ones on a dependency cycle, which never get ready).
 */
export function tasksInBuildOrder(view: Pick<QueueView, 'tasks' | 'order'>): QueueTask[] {
  const byId = new Map<string, TaskView>()
  for (const t of view.tasks) if (!byId.has(t.id)) byId.set(t.id, t)
  const ordered = view.order.flatMap((id) => (byId.has(id) ? [byId.get(id)!] : []))
  const placed = new Set(ordered.map((t) => t.id))
  return [...ordered, ...view.tasks.filter((t) => !placed.has(t.id))].map(({ id, deps, status }) => ({
    id,
    deps,
    status,
  }))
}

/**
 * The scheduler (pure). A task starts only when every dependency is merged, never twice (a task in a lane is not
 * started again), in the lowest free lane, in build order, while fewer than `parallel` lanes are held. A task that
 * depends on an escalated or skipped one (at any depth) waits for a person and says on whom.
 */
export function schedule(input: ScheduleInput): Schedule {
  checkInput(input)
  const byId = new Map<string, QueueTask>()
  for (const t of input.tasks) if (!byId.has(t.id)) byId.set(t.id, t)
  const laneOf = new Map(input.inLanes.map((l) => [l.taskId, l]))
  const isMerged = (id: string): boolean => input.merged.has(id) || !byId.has(id)
  const blockers = personBlockers(input, byId, isMerged)

  const taken = new Set(input.inLanes.map((l) => l.lane))
  const free: number[] = []
  for (let lane = 1; lane <= input.parallel; lane++) if (!taken.has(lane)) free.push(lane)
  let slots = Math.max(0, input.parallel - input.inLanes.length)

  const start: LaneStart[] = []
  const held: HeldTask[] = []
  for (const task of byId.values()) {
    if (task.status !== 'pending' || isMerged(task.id) || laneOf.has(task.id)) continue
    const deps = unique(task.deps)
    if (input.escalated.has(task.id) || input.skipped.has(task.id)) {
      const escalated = input.escalated.has(task.id)
      held.push({
        taskId: task.id,
        kind: escalated ? 'escalated' : 'skipped',
        waitsFor: [],
        reason: escalated ? 'is escalated: it waits for a person.' : 'is skipped by this build.',
      })
      continue
    }
    const forPerson = deps.filter((d) => blockers(d).length > 0)
    if (forPerson.length > 0) {
      const roots = unique(forPerson.flatMap(blockers))
      const why = roots.map((r) => `${r} is ${input.escalated.has(r) ? 'escalated' : 'skipped'}`).join(', ')
      held.push({
        taskId: task.id,
        kind: 'waits-for-person',
        waitsFor: forPerson,
        reason: `depends on ${list(forPerson)}, which wait${forPerson.length > 1 ? '' : 's'} for a person (${why}).`,
      })
      continue
    }
    const unmerged = deps.filter((d) => !isMerged(d))
    if (unmerged.length > 0) {
      const states = unmerged.map((d) => `${d} (${depState(d, byId, laneOf, start)})`)
      held.push({
        taskId: task.id,
        kind: 'waits-for-merge',
        waitsFor: unmerged,
        reason: `waits until ${list(states)} ${unmerged.length > 1 ? 'are' : 'is'} merged.`,
      })
      continue
    }
    if (slots > 0 && free.length > 0) {
      start.push({ taskId: task.id, lane: free.shift()! })
      slots--
      continue
    }
    const inUse = input.inLanes.length + start.length
    held.push({
      taskId: task.id,
      kind: 'no-free-lane',
      waitsFor: [],
      reason: `is ready and waits for a free lane (${inUse} of ${input.parallel} in use).`,
    })
  }

  const merge = mergeOrder(input, byId, laneOf, isMerged)
  return { start, held, freeLanes: free.slice(0, slots), ...merge }
}

/** The escalated or skipped tasks a task waits on through its dependencies (itself included), memoised. */
function personBlockers(
  input: ScheduleInput,
  byId: ReadonlyMap<string, QueueTask>,
  isMerged: (id: string) => boolean,
): (id: string) => string[] {
  const memo = new Map<string, string[]>()
  const visit = (id: string): string[] => {
    const known = memo.get(id)
    if (known) return known
    // A dependency cycle is not a person's wait: the cycle's tasks just never get ready.
    memo.set(id, [])
    let roots: string[] = []
    if (isMerged(id)) roots = []
    else if (input.escalated.has(id) || input.skipped.has(id)) roots = [id]
    else roots = unique(unique(byId.get(id)?.deps ?? []).flatMap(visit))
    memo.set(id, roots)
    return roots
  }
  return visit
}

function depState(
  id: string,
  byId: ReadonlyMap<string, QueueTask>,
  laneOf: ReadonlyMap<string, TaskInLane>,
  starting: readonly LaneStart[] = [],
): string {
  const starts = starting.find((s) => s.taskId === id)
  if (starts) return `starting in lane ${starts.lane}`
  const l = laneOf.get(id)
  if (l?.state === 'running') return `building in lane ${l.lane}`
  if (l?.state === 'finished') return `finished in lane ${l.lane}, waiting to merge`
  if (l?.state === 'merging') return `merging from lane ${l.lane}`
  return byId.get(id)?.status === 'done' ? 'done, not accepted yet' : 'not started yet'
}

function mergeOrder(
  input: ScheduleInput,
  byId: ReadonlyMap<string, QueueTask>,
  laneOf: ReadonlyMap<string, TaskInLane>,
  isMerged: (id: string) => boolean,
): Pick<Schedule, 'mergeQueue' | 'mergeNext' | 'mergeHeld'> {
  const position = new Map([...byId.keys()].map((id, i) => [id, i]))
  const rank = (l: TaskInLane): [number, number, number] => [
    l.state === 'merging' ? 0 : 1,
    l.finishedAt!,
    position.get(l.taskId) ?? Number.MAX_SAFE_INTEGER,
  ]
  const waiting = input.inLanes
    .filter((l) => l.state !== 'running' && !input.merged.has(l.taskId))
    .sort((a, b) => {
      const [x, y] = [rank(a), rank(b)]
      return x[0] - y[0] || x[1] - y[1] || x[2] - y[2] || (a.taskId < b.taskId ? -1 : 1)
    })
  const queue: string[] = []
  const ahead = new Set<string>()
  const depsOf = (id: string): string[] => unique(byId.get(id)?.deps ?? [])
  const canGo = (id: string): boolean => depsOf(id).every((d) => isMerged(d) || ahead.has(d))
  // First finished first; after each pick, look again from the front: an earlier task whose dependency just
  // joined the queue goes before later ones.
  for (let i = 0; i < waiting.length; ) {
    const l = waiting[i]!
    if (l.state === 'merging' || canGo(l.taskId)) {
      queue.push(l.taskId)
      ahead.add(l.taskId)
      waiting.splice(i, 1)
      i = 0
    } else i++
  }
  const mergeHeld = waiting.map((l) => {
    const waitsFor = depsOf(l.taskId).filter((d) => !isMerged(d) && !ahead.has(d))
    const states = waitsFor.map((d) => `${d} (${depState(d, byId, laneOf)})`)
    return {
      taskId: l.taskId,
      waitsFor,
      reason: `cannot merge before ${list(states)} ${waitsFor.length > 1 ? 'are' : 'is'} merged.`,
    }
  })
  const merging = input.inLanes.some((l) => l.state === 'merging' && !input.merged.has(l.taskId))
  return { mergeQueue: queue, mergeNext: merging ? null : (queue[0] ?? null), mergeHeld }
}

/** Inconsistent input is a bug in the caller: say exactly what, never schedule around it. */
function checkInput(input: ScheduleInput): void {
  const { parallel } = input
  if (!Number.isInteger(parallel) || parallel < 1 || parallel > MAX_PARALLEL)
    throw new RangeError(`parallel is a whole number from 1 to ${MAX_PARALLEL}; got ${String(parallel)}.`)
  const lanes = new Map<number, string>()
  const tasks = new Map<string, number>()
  let merging: string | null = null
  for (const l of input.inLanes) {
    assertLaneNumber(l.lane)
    const other = lanes.get(l.lane)
    if (other !== undefined) throw new Error(`Lane ${l.lane} is given to both ${other} and ${l.taskId}.`)
    const otherLane = tasks.get(l.taskId)
    if (otherLane !== undefined)
      throw new Error(`${l.taskId} is in two lanes (${otherLane} and ${l.lane}): a task has one lane.`)
    lanes.set(l.lane, l.taskId)
    tasks.set(l.taskId, l.lane)
    if (l.state !== 'running' && (l.finishedAt === undefined || !Number.isFinite(l.finishedAt)))
      throw new Error(`${l.taskId} is ${l.state} in lane ${l.lane} without the time it finished.`)
    if (l.state === 'merging' && !input.merged.has(l.taskId)) {
      if (merging !== null)
        throw new Error(`${merging} and ${l.taskId} are both merging: merges go one at a time.`)
      merging = l.taskId
    }
  }
}

const unique = <T>(xs: readonly T[]): T[] => [...new Set(xs)]

/** "t-a", "t-a and t-b", "t-a, t-b and t-c". */
function list(items: readonly string[]): string {
  return items.length > 1 ? `${items.slice(0, -1).join(', ')} and ${items.at(-1)!}` : (items[0] ?? '')
}

// ---- the `lane` field of build events ----

/** Which lane each task holds right now, by queue id (t-…) and by the lifecycle's task number. */
export interface LaneTags {
  byTaskId: ReadonlyMap<string, number>
  byTaskNumber: ReadonlyMap<number, number>
}

/**
 * The lane an event belongs to (DESIGN.md §18: `ralph build --json` events carry `lane`): the lane its task holds
 * when it is emitted — found by the queue id (`taskId`) first, else by the lifecycle's task number (`task`) — and
 * null for the build's own events (build.started, build.budget, build.finished …) and for a task outside a lane (a
 * serial build; the apply to the user's folder after the lane is removed).
 */
export function laneOfEvent(
  event: { type: string; taskId?: unknown; task?: unknown },
  tags: LaneTags,
): number | null {
  if (typeof event.taskId === 'string') {
    const lane = tags.byTaskId.get(event.taskId)
    if (lane !== undefined) return lane
  }
  if (typeof event.task === 'number') return tags.byTaskNumber.get(event.task) ?? null
  return null
}

/**
 * The event with its `lane` field. An event that already carries a lane number keeps it: a lane's loop tags its
 * events at their source, and the build's emitter they pass through must not overwrite that with its own view.
 */
export function tagLane<E extends { type: string }>(
  event: E,
  lane: number | null,
): E & { lane: number | null } {
  const own = (event as { lane?: unknown }).lane
  if (typeof own === 'number') return event as E & { lane: number }
  if (lane !== null) assertLaneNumber(lane)
  return { ...event, lane }
}
