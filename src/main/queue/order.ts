import type { TaskRecord } from '../../shared/queue'
import { priorityRank, type Located } from './records'

/**
 * Ids a pending task still waits for. A dependency is met when no pending task carries its id: done, or gone
 * from the file (accepted tasks are removed). A duplicated id waits for every copy.
 */
export function blockedBy(task: TaskRecord, pendingIds: ReadonlySet<string>): string[] {
  if (task.s !== 'p') return []
  return [...new Set(task.deps ?? [])].filter((d) => pendingIds.has(d))
}

export const pendingIdsOf = (tasks: readonly Located<TaskRecord>[]): Set<string> =>
  new Set(tasks.filter((t) => t.rec.s === 'p').map((t) => t.rec.id))

function pushTo<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key)
  if (list) list.push(value)
  else map.set(key, [value])
}

export interface BuildOrder {
  /** Pending tasks in the order they can be built: dependencies first, then priority, then file order. */
  order: Located<TaskRecord>[]
  /** Pending tasks that can never start: on a dependency cycle or waiting for one. */
  stuck: Located<TaskRecord>[]
}

/**
 * Kahn's algorithm whose ready set is ordered by priority then file position. A task inherits the priority of
 * the most urgent task waiting on it, so a high-priority task is not held back behind medium work by its own
 * low-priority dependency.
 */
export function buildOrder(tasks: readonly Located<TaskRecord>[]): BuildOrder {
  const pending = tasks.filter((t) => t.rec.s === 'p')
  const pendingIds = pendingIdsOf(pending)
  const copiesLeft = new Map<string, number>()
  for (const t of pending) copiesLeft.set(t.rec.id, (copiesLeft.get(t.rec.id) ?? 0) + 1)
  const waiting = new Map<Located<TaskRecord>, Set<string>>()
  const dependents = new Map<string, Located<TaskRecord>[]>()
  for (const t of pending) {
    const deps = new Set(blockedBy(t.rec, pendingIds))
    waiting.set(t, deps)
    for (const d of deps) pushTo(dependents, d, t)
  }
  const urgency = inheritedRanks(pending, waiting, dependents)
  const better = (a: Located<TaskRecord>, b: Located<TaskRecord>): number =>
    urgency.get(a)! - urgency.get(b)! ||
    priorityRank(a.rec.priority) - priorityRank(b.rec.priority) ||
    a.index - b.index
  // Kept sorted best-last, so taking the best is a pop and a newly ready task is one binary insertion.
  const ready = pending.filter((t) => waiting.get(t)!.size === 0).sort((a, b) => better(b, a))
  const insert = (t: Located<TaskRecord>): void => {
    let lo = 0
    let hi = ready.length
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if (better(ready[mid]!, t) > 0) lo = mid + 1
      else hi = mid
    }
    ready.splice(lo, 0, t)
  }
  const order: Located<TaskRecord>[] = []
  while (ready.length > 0) {
    const t = ready.pop()!
    order.push(t)
    const left = copiesLeft.get(t.rec.id)! - 1
    copiesLeft.set(t.rec.id, left)
    if (left > 0) continue
    for (const dep of dependents.get(t.rec.id) ?? []) {
      const w = waiting.get(dep)!
      w.delete(t.rec.id)
      if (w.size === 0) insert(dep)
    }
  }
  const placed = new Set(order)
  return { order, stuck: pending.filter((t) => !placed.has(t)) }
}

function inheritedRanks(
  pending: readonly Located<TaskRecord>[],
  waiting: ReadonlyMap<Located<TaskRecord>, ReadonlySet<string>>,
  dependents: ReadonlyMap<string, Located<TaskRecord>[]>,
): Map<Located<TaskRecord>, number> {
  const rank = new Map(pending.map((t) => [t, priorityRank(t.rec.priority)]))
  const byId = new Map<string, Located<TaskRecord>[]>()
  for (const t of pending) pushTo(byId, t.rec.id, t)
  // Visit dependents before their dependencies (reverse topological order), so each rank is final when passed on.
  const left = new Map(pending.map((t) => [t, (dependents.get(t.rec.id) ?? []).length]))
  const queue = pending.filter((t) => left.get(t) === 0)
  for (let i = 0; i < queue.length; i++) {
    const t = queue[i]!
    for (const depId of waiting.get(t)!) {
      for (const dep of byId.get(depId) ?? []) {
        rank.set(dep, Math.min(rank.get(dep)!, rank.get(t)!))
        const n = left.get(dep)! - 1
        left.set(dep, n)
        if (n === 0) queue.push(dep)
      }
    }
  }
  return rank
}

/**
 * The ids on a cycle that adding `deps` to task `id` would close, in path order (`[id, …, id]`), or null.
 * Looks at every task in the file, done ones included, since a done task can be rejected back to pending.
 */
export function findCycle(
  tasks: readonly Located<TaskRecord>[],
  id: string,
  deps: readonly string[],
): string[] | null {
  const edges = new Map<string, string[]>()
  for (const t of tasks)
    if (t.rec.id !== id) edges.set(t.rec.id, [...(edges.get(t.rec.id) ?? []), ...(t.rec.deps ?? [])])
  edges.set(id, [...deps])
  const seen = new Set<string>()
  const path: string[] = []
  const visit = (node: string): string[] | null => {
    if (node === id && path.length > 0) return [...path, id]
    if (seen.has(node)) return null
    seen.add(node)
    path.push(node)
    for (const next of edges.get(node) ?? []) {
      const found = visit(next)
      if (found) return found
    }
    path.pop()
    return null
  }
  return visit(id)
}
