import type { HistoryPoint, TaskHistory, TaskRecord } from '../../shared/queue'
import { parsePlan } from './planFile'
import { taskRecords, tombstoneRecords } from './records'

export interface HistoryVersion {
  commit: string
  date: string
  /** The operation that wrote this version (from its commit trailers). */
  op: string
  content: string | null
}

export interface ReconstructedTask extends TaskHistory {
  /** Indexes (into the versions) of the commits that changed this task: `--since` keeps a task touched after D. */
  touched: number[]
}

interface Tracked {
  task: ReconstructedTask
  doneAt: string | null
  s: 'p' | 'd'
}

// Ops that take tasks out of the file without accepting them.
const CANCELLING_OPS = new Set(['plan-start', 'task-cancel'])

/**
 * Every task that ever was in the queue, rebuilt from the successive plan.jsonl versions on the history ref.
 * Removed tasks are told apart as seed 001's table says: done_at set and no tombstone → accepted; done_at set and
 * a tombstone for that done_at → rejected; no done_at → cancelled. Two refinements the table leaves open: a task
 * rejected, retried and then accepted has a tombstone for its *earlier* done_at only, so it counts as accepted;
 * and a done task dropped by a cancelling start (`plan-start`, `task cancel`) was never verified, so it is cancelled.
 */
export function reconstructTasks(versions: readonly HistoryVersion[]): ReconstructedTask[] {
  const all: ReconstructedTask[] = []
  let active = new Map<string, Tracked>()
  // A task id that left the file and comes back with the same name (a rollback restored it) is the same task.
  const gone = new Map<string, Tracked>()
  const rejectionsSeen = new Set<string>()

  versions.forEach((v, index) => {
    if (v.content === null) return
    const state = parsePlan(v.content)
    const point: HistoryPoint = { commit: v.commit, date: v.date }
    const next = new Map<string, Tracked>()
    for (const { rec } of taskRecords(state)) {
      if (next.has(rec.id)) continue // a duplicate id: the first copy speaks for it
      let tracked = active.get(rec.id)
      if (!tracked) {
        const back = gone.get(rec.id)
        if (back && back.task.name === rec.name) {
          tracked = back
          gone.delete(rec.id)
          Object.assign(tracked.task, { accepted: null, cancelled: null })
          tracked.task.touched.push(index)
        } else {
          tracked = { task: newTask(rec, point, index), doneAt: null, s: 'p' }
          all.push(tracked.task)
        }
      }
      update(tracked, rec, point, index)
      next.set(rec.id, tracked)
    }
    for (const { rec } of tombstoneRecords(state)) {
      const key = `${rec.id}\0${rec.done_at}`
      if (rejectionsSeen.has(key)) continue
      rejectionsSeen.add(key)
      const tracked = next.get(rec.id) ?? active.get(rec.id) ?? gone.get(rec.id)
      if (!tracked) continue
      const rejection = { ...point, reason: rec.reason, doneAt: rec.done_at }
      tracked.task.rejections.push(rejection)
      tracked.task.rejected = { ...point, reason: rec.reason }
      tracked.task.touched.push(index)
    }
    for (const [id, tracked] of active) {
      if (next.has(id)) continue
      const t = tracked.task
      t.touched.push(index)
      const rejectedAsDone = tracked.doneAt !== null && t.rejections.some((r) => r.doneAt === tracked.doneAt)
      if (rejectedAsDone) t.status = 'rejected'
      else if (tracked.doneAt !== null && !CANCELLING_OPS.has(v.op)) {
        t.status = 'accepted'
        t.accepted = point
      } else {
        t.status = 'cancelled'
        t.cancelled = point
      }
      gone.set(id, tracked)
    }
    active = next
  })
  for (const tracked of active.values()) tracked.task.status = tracked.s === 'd' ? 'done' : 'pending'
  // `rejected` names the latest failure only while it is the task's final word.
  for (const t of all) if (t.status !== 'rejected' && t.status !== 'pending') t.rejected = null
  return all
}

function newTask(rec: TaskRecord, point: HistoryPoint, index: number): ReconstructedTask {
  return {
    id: rec.id,
    name: rec.name,
    desc: rec.name,
    spec: rec.spec,
    status: 'pending',
    created: point,
    done: null,
    accepted: null,
    rejected: null,
    cancelled: null,
    rejections: [],
    touched: [index],
  }
}

function update(tracked: Tracked, rec: TaskRecord, point: HistoryPoint, index: number): void {
  const t = tracked.task
  const doneAt = rec.done_at ?? null
  const changed =
    t.name !== rec.name || t.spec !== rec.spec || tracked.s !== rec.s || tracked.doneAt !== doneAt
  if (rec.s === 'd' && (tracked.s !== 'd' || tracked.doneAt !== doneAt)) t.done = point
  Object.assign(t, { name: rec.name, desc: rec.name, spec: rec.spec })
  tracked.s = rec.s
  tracked.doneAt = doneAt
  if (changed && t.touched[t.touched.length - 1] !== index) t.touched.push(index)
}
