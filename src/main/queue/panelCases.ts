import { readdir, readFile, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { AppError } from '../../shared/errors'
import type { MutationResult, TaskAddInput, TaskRecord } from '../../shared/queue'
import { findTask, invalid } from './edits'
import { buildOrder } from './order'
import { recordLine, type QueueState } from './planFile'
import { changePlan, projectDirOf, type MutateOptions } from './queueStore'
import { taskRecords, type Located } from './records'
import { addTask, queryState, setSpec } from './useCases'
import { ifUnreadable } from '../workspace'

/**
 * What the Queue panel needs beyond the CLI's use-cases: a first task that also sets the spec, moving a task in
 * the build order, and the notifications folder.
 */

/** Adds a task; while the queue has no spec yet, sets `spec` first (as `ralph set-spec` would). */
export async function addPanelTask({
  projectDir,
  spec,
  options,
  ...input
}: { projectDir: string; options: MutateOptions } & TaskAddInput): Promise<MutationResult> {
  const current = await queryState({ projectDir })
  if (current.spec === null) {
    if (spec === undefined || spec.trim() === '') {
      throw invalid(
        'The queue has no spec yet, so the task has nothing to belong to. Name the spec file (for example specs/feature.md), or run `ralph set-spec FILE`.',
      )
    }
    await setSpec({ projectDir, spec, options })
    return addTask({ projectDir, ...input, options })
  }
  return addTask({ projectDir, ...input, spec, options })
}

export type MoveDirection = 'up' | 'down'

interface MoveOutcome {
  state: QueueState
  message: string
  spec: string
}

/**
 * Moves a pending task one place in the build order. Seed 001's records carry no position: `ralph build` takes
 * dependencies first, then priority, then file order. So the task takes its neighbour's priority and its line goes
 * just before (up) or after (down) the neighbour's. A move across a dependency, or one that a more urgent
 * dependent task overrides, is refused with the reason instead of silently doing something else.
 */
export function moveTaskInOrder(state: QueueState, id: string, direction: MoveDirection): MoveOutcome {
  const target = findTask(state, id)
  if (target.rec.s !== 'p') {
    throw invalid(`${id} is done: only pending tasks have a place in the build order.`)
  }
  const tasks = taskRecords(state)
  const { order } = buildOrder(tasks)
  const pos = order.findIndex((t) => t.index === target.index)
  if (pos < 0) {
    throw invalid(
      `${id} waits on a dependency cycle and has no place in the build order: fix its deps first.`,
    )
  }
  const up = direction === 'up'
  const neighbour = order[up ? pos - 1 : pos + 1]
  if (!neighbour) throw invalid(`${id} is already ${up ? 'first' : 'last'} in the build order.`)
  const [first, second] = up ? [neighbour, target] : [target, neighbour]
  if (dependsOn(tasks, second.rec, first.rec.id)) {
    throw invalid(
      `${second.rec.id} depends on ${first.rec.id}, so it always runs after it. Change its dependencies (Edit) to reorder them.`,
    )
  }
  const moved: TaskRecord = { ...target.rec }
  if (neighbour.rec.priority === undefined) delete moved.priority
  else moved.priority = neighbour.rec.priority
  const without = state.lines.filter((_, i) => i !== target.index)
  const at = without.indexOf(state.lines[neighbour.index]!) + (up ? 0 : 1)
  const lines = [...without.slice(0, at), recordLine(moved), ...without.slice(at)]
  const next: QueueState = { exists: true, lines }
  const after = buildOrder(taskRecords(next)).order.map((t) => t.rec.id)
  if (after.indexOf(second.rec.id) > after.indexOf(first.rec.id)) {
    const early = up ? neighbour.rec.id : id
    throw invalid(
      `${early} runs early because a more urgent task depends on it, so this move would not change the order. Raise or lower the priority of that task instead (Edit).`,
    )
  }
  const where = up ? `before ${neighbour.rec.id}` : `after ${neighbour.rec.id}`
  return { state: next, message: `task move ${id}: ${where}`, spec: target.rec.spec }
}

/** Whether task `rec` waits for `id`, directly or through other tasks in the file. */
function dependsOn(tasks: readonly Located<TaskRecord>[], rec: TaskRecord, id: string): boolean {
  const byId = new Map(tasks.map((t) => [t.rec.id, t.rec]))
  const seen = new Set<string>()
  const stack = [...(rec.deps ?? [])]
  while (stack.length > 0) {
    const d = stack.pop()!
    if (d === id) return true
    if (seen.has(d)) continue
    seen.add(d)
    stack.push(...(byId.get(d)?.deps ?? []))
  }
  return false
}

/**
 * `moveTaskInOrder` on the file, as `mutateQueue` does a command: under the queue lock every writer takes, written
 * atomically, one history commit (op `task-move`).
 */
export async function moveTask({
  projectDir: dirIn,
  id,
  direction,
  options,
}: {
  projectDir: string
  id: string
  direction: MoveDirection
  options: MutateOptions
}): Promise<MutationResult> {
  return changePlan(
    dirIn,
    (state) => {
      const outcome = moveTaskInOrder(state, id, direction)
      return { ...outcome, op: 'task-move', ids: [id], warnings: [] }
    },
    options,
  )
}

export interface NotificationFile {
  file: string
  event: string
  at: number
  title: string
  body: string
}

const BODY_LIMIT = 4_000

/** `.ralph/notifications/<event>-<iso-time>.md`, newest first (by modification time, then name). */
export async function listNotifications({
  projectDir,
  limit = 50,
}: {
  projectDir: string
  limit?: number
}): Promise<{ items: NotificationFile[]; total: number }> {
  const dir = join(await projectDirOf(projectDir), '.ralph', 'notifications')
  const names = await readdir(dir).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT' || err.code === 'ENOTDIR') return [] as string[]
    throw new AppError('io', `Cannot read .ralph/notifications: ${err.message}`)
  })
  const files = (
    await Promise.all(
      names
        .filter((n) => n.endsWith('.md'))
        .map(async (file) => {
          const st = await stat(join(dir, file)).catch(ifUnreadable(null))
          return st?.isFile() ? { file, at: st.mtimeMs } : null
        }),
    )
  ).filter((f): f is { file: string; at: number } => f !== null)
  files.sort((a, b) => b.at - a.at || b.file.localeCompare(a.file))
  const items = await Promise.all(
    files.slice(0, limit).map(async ({ file, at }) => {
      const text = await readFile(join(dir, file), 'utf8').catch(ifUnreadable(''))
      const base = file.slice(0, -'.md'.length)
      const heading = /^#+\s+(.+)$/m.exec(text)
      const body = (heading ? text.replace(heading[0], '') : text).trim()
      return {
        file,
        event: /^(.+?)-\d{4}-\d{2}-\d{2}/.exec(base)?.[1] ?? base,
        at,
        title: heading?.[1]?.trim() ?? base,
        body: body.length > BODY_LIMIT ? `${body.slice(0, BODY_LIMIT)}…` : body,
      }
    }),
  )
  return { items, total: files.length }
}
