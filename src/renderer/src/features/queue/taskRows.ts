import type { QueueView, TaskView } from '../../../../shared/queue'
import type { Tone } from '../../ui'
import { depName } from './taskForm'

/** One task as the list shows it: where it stands and why, and whether it can move. */
export interface TaskRow {
  task: TaskView
  /** 1-based place in the build order; null for done tasks and tasks stuck on a cycle. */
  place: number | null
  status: { word: string; tone: Tone; detail: string | null }
  /** Why Move up / Move down / Remove cannot be used now; null when they can. */
  cannotMoveUp: string | null
  cannotMoveDown: string | null
  cannotRemove: string | null
}

/**
 * The list's order: done tasks first (they wait for a decision), then pending ones in the order `ralph build`
 * takes them, then those that can never start (a dependency cycle).
 */
export function taskRows(state: QueueView): TaskRow[] {
  const byId = new Map(state.tasks.map((t) => [t.id, t]))
  const inOrder = state.order.map((id) => byId.get(id)).filter((t): t is TaskView => t !== undefined)
  const ordered = new Set(state.order)
  const done = state.tasks.filter((t) => t.status === 'done')
  const stuck = state.tasks.filter((t) => t.status === 'pending' && !ordered.has(t.id))
  const name = (id: string) => (byId.has(id) ? byId.get(id)!.name : depName(state, id))
  // Who waits on whom, built once: a queue of thousands of tasks must not scan itself once per task.
  const waiting = new Map<string, TaskView[]>()
  for (const t of state.tasks) {
    if (t.status !== 'pending') continue
    for (const d of t.deps) {
      const list = waiting.get(d)
      if (list) list.push(t)
      else waiting.set(d, [t])
    }
  }
  const dependents = (id: string) => waiting.get(id) ?? []

  const removable = (t: TaskView): string | null => {
    const waiting = dependents(t.id)
    return waiting.length > 0
      ? `${waiting.map((w) => w.name).join(', ')} depend${waiting.length > 1 ? '' : 's'} on it: remove ${waiting.length > 1 ? 'those' : 'that'} first or edit ${waiting.length > 1 ? 'their' : 'its'} dependencies`
      : null
  }

  const rows: TaskRow[] = done.map((task) => ({
    task,
    place: null,
    status: { word: 'Done', tone: 'info', detail: 'awaiting acceptance' },
    cannotMoveUp: 'Only pending tasks have a place in the build order',
    cannotMoveDown: 'Only pending tasks have a place in the build order',
    cannotRemove: removable(task),
  }))
  inOrder.forEach((task, i) => {
    const prev = inOrder[i - 1]
    const next = inOrder[i + 1]
    const waits = task.blockedBy
    rows.push({
      task,
      place: i + 1,
      status:
        waits.length > 0
          ? { word: 'Waiting', tone: 'neutral', detail: `for ${waits.map(name).join(', ')}` }
          : i === 0
            ? { word: 'Next', tone: 'accent', detail: null }
            : { word: 'Pending', tone: 'neutral', detail: null },
      cannotMoveUp: !prev
        ? 'Already first in the build order'
        : task.deps.includes(prev.id)
          ? `It depends on ${prev.name}, so it runs after it`
          : null,
      cannotMoveDown: !next
        ? 'Already last in the build order'
        : next.deps.includes(task.id)
          ? `${next.name} depends on it, so it runs first`
          : null,
      cannotRemove: removable(task),
    })
  })
  for (const task of stuck) {
    rows.push({
      task,
      place: null,
      status: { word: 'Stuck', tone: 'bad', detail: 'its dependencies form a cycle' },
      cannotMoveUp: 'It can never start: break the dependency cycle first (Edit)',
      cannotMoveDown: 'It can never start: break the dependency cycle first (Edit)',
      cannotRemove: removable(task),
    })
  }
  return rows
}

export const priorityTone = (p: TaskView['priority']): Tone => (p === 'high' ? 'warn' : 'neutral')
