import { AppError } from '../../shared/errors'
import {
  ANY_ISSUE_ID,
  ANY_TASK_ID,
  type RejectRecord,
  type TaskAddInput,
  type TaskEditInput,
  type TaskRecord,
} from '../../shared/queue'
import type { CommandContext, CommandOutcome } from './commands'
import { criterionLines, parseCriteria, untaggedWarning } from './criteria'
import { append, findTask, invalid, remove, replace, specFor } from './edits'
import { newId } from './ids'
import { blockedBy, buildOrder, findCycle, pendingIdsOf } from './order'
import type { QueueState } from './planFile'
import { takenIds, taskRecords, type Located } from './records'

export function addTask(state: QueueState, input: TaskAddInput, ctx: CommandContext): CommandOutcome {
  const name = input.name.trim()
  if (name === '') throw invalid('A task needs a name: ralph task add "what to do".')
  const spec = specFor(state, input.spec, 'task')
  const id = newId('t', takenIds(state), ctx.random)
  const deps = checkDeps(state, id, input.deps ?? [])
  const accept = criterionLines(input.accept ?? [])
  const record: TaskRecord = {
    t: 'task',
    id,
    spec,
    name,
    ...(input.notes?.trim() ? { notes: input.notes.trim() } : {}),
    ...(accept.length > 0 ? { accept } : {}),
    ...(deps.length > 0 ? { deps } : {}),
    s: 'p',
    ...(input.priority ? { priority: input.priority } : {}),
    ...optionalField('parent', optionalId(input.parent, ANY_TASK_ID, 'a task id (t-…)')),
    ...optionalField('created_from', optionalId(input.createdFrom, ANY_ISSUE_ID, 'an issue id (i-…)')),
    ...optionalField('supersedes', optionalId(input.supersedes, ANY_TASK_ID, 'a task id (t-…)')),
  }
  return {
    state: append(state, record),
    message: `task add ${id}: ${name}`,
    ids: [id],
    spec,
    warnings: criteriaWarnings(id, accept),
  }
}

const optionalField = <K extends string>(key: K, value: string | undefined): Partial<Record<K, string>> =>
  value === undefined ? {} : ({ [key]: value } as Record<K, string>)

export function editTask(state: QueueState, input: TaskEditInput): CommandOutcome {
  const target = findTask(state, input.id)
  const rec: TaskRecord = { ...target.rec }
  const changed: string[] = []
  if (input.name !== undefined) {
    const name = input.name.trim()
    if (name === '') throw invalid('A task name cannot be empty.')
    if (name !== rec.name) changed.push('name')
    rec.name = name
  }
  if (input.notes !== undefined) {
    if ((input.notes.trim() || undefined) !== rec.notes) changed.push('notes')
    if (input.notes.trim()) rec.notes = input.notes.trim()
    else delete rec.notes
  }
  let warnings: string[] = []
  if (input.accept !== undefined) {
    const accept = criterionLines(input.accept)
    changed.push('accept')
    if (accept.length > 0) rec.accept = accept
    else delete rec.accept
    warnings = criteriaWarnings(rec.id, accept)
  }
  if (input.deps !== undefined) {
    const deps = checkDeps(state, rec.id, input.deps)
    changed.push('deps')
    if (deps.length > 0) rec.deps = deps
    else delete rec.deps
  }
  if (input.priority !== undefined) {
    if (input.priority !== (rec.priority ?? 'medium')) changed.push('priority')
    rec.priority = input.priority
  }
  if (changed.length === 0)
    throw invalid(`Nothing to change on ${rec.id}: pass a name, notes, criteria, deps or a priority.`)
  return {
    state: replace(state, target.index, rec),
    message: `task edit ${rec.id}: ${changed.join(', ')}`,
    ids: [rec.id],
    spec: rec.spec,
    warnings,
  }
}

export function markDone(state: QueueState, id: string | undefined, doneAt: string): CommandOutcome {
  const tasks = taskRecords(state)
  let target: Located<TaskRecord>
  if (id !== undefined) {
    target = findTask(state, id)
    if (target.rec.s === 'd')
      throw invalid(
        `${id} is already done; \`ralph task accept\` or \`ralph task reject "reason"\` decides it.`,
      )
    const waits = blockedBy(target.rec, pendingIdsOf(tasks))
    if (waits.length > 0)
      throw invalid(
        `${id} is blocked by ${waits.join(', ')} (still pending); finish ${waits.length > 1 ? 'those' : 'it'} first.`,
      )
  } else {
    if (!tasks.some((t) => t.rec.s === 'p'))
      throw invalid('No pending task to mark done. `ralph query stage` says what comes next.')
    const first = buildOrder(tasks).order[0]
    if (!first)
      throw invalid(
        'Every pending task waits for another pending task (a dependency cycle); name one with `ralph task done ID` or fix its deps.',
      )
    target = first
  }
  const rec: TaskRecord = { ...target.rec, s: 'd', done_at: doneAt }
  return {
    state: replace(state, target.index, rec),
    message: `task done ${rec.id}: ${rec.name}`,
    ids: [rec.id],
    spec: rec.spec,
    warnings: [],
  }
}

export function acceptTasks(state: QueueState, ids: readonly string[] | undefined): CommandOutcome {
  let targets: Located<TaskRecord>[]
  if (ids !== undefined && ids.length > 0) {
    targets = [...new Set(ids)].map((id) => {
      const t = findTask(state, id)
      if (t.rec.s !== 'd')
        throw invalid(
          `${id} is still pending: only done tasks can be accepted (\`ralph task done ${id}\` first).`,
        )
      return t
    })
  } else {
    targets = taskRecords(state).filter((t) => t.rec.s === 'd')
    if (targets.length === 0)
      throw invalid('No done tasks to accept. Mark one done first (`ralph task done`).')
  }
  const list = targets.map((t) => t.rec.id)
  return {
    state: remove(state, new Set(targets.map((t) => t.index))),
    message: `task accept ${list.join(', ')}`,
    ids: list,
    spec: targets[0]!.rec.spec,
    warnings: [],
  }
}

export function rejectTask(state: QueueState, id: string | undefined, reasonIn: string): CommandOutcome {
  const reason = reasonIn.trim()
  if (reason === '') throw invalid('Say why the task is rejected: ralph task reject "reason".')
  let target: Located<TaskRecord>
  if (id !== undefined) {
    target = findTask(state, id)
    if (target.rec.s !== 'd')
      throw invalid(`${id} is not done, so there is nothing to reject (only done tasks go through VERIFY).`)
  } else {
    const first = taskRecords(state).find((t) => t.rec.s === 'd')
    if (!first) throw invalid('No done task to reject. Only done tasks go through VERIFY.')
    target = first
  }
  // done_at stays on the task: seed 001's history tells a rejected task by a tombstone naming its done_at.
  const doneAt = target.rec.done_at ?? ''
  const rec: TaskRecord = { ...target.rec, s: 'p', reject: reason }
  const tombstone: RejectRecord = { t: 'reject', id: rec.id, done_at: doneAt, reason }
  return {
    state: append(replace(state, target.index, rec), tombstone),
    message: `task reject ${rec.id}: ${reason}`,
    ids: [rec.id],
    spec: rec.spec,
    warnings: [],
  }
}

export function cancelTask(state: QueueState, id: string): CommandOutcome {
  const target = findTask(state, id)
  const dependents = taskRecords(state).filter((t) => t.rec.s === 'p' && t.rec.deps?.includes(id))
  if (dependents.length > 0) {
    throw invalid(
      `${id} is a dependency of ${dependents.map((t) => t.rec.id).join(', ')}; cancel those or drop ${id} from their deps first.`,
    )
  }
  return {
    state: remove(state, new Set([target.index])),
    message: `task cancel ${id}: ${target.rec.name}`,
    ids: [id],
    spec: target.rec.spec,
    warnings: [],
  }
}

// ---- checks ----

function checkDeps(state: QueueState, id: string, deps: readonly string[]): string[] {
  const unique = [...new Set(deps.map((d) => d.trim()).filter((d) => d !== ''))]
  const tasks = taskRecords(state)
  const known = new Set(tasks.map((t) => t.rec.id))
  const missing = unique.filter((d) => !known.has(d))
  if (missing.length > 0) {
    throw new AppError(
      'not-found',
      `Unknown dependenc${missing.length > 1 ? 'ies' : 'y'} ${missing.join(', ')}: a task can only depend on tasks in the queue. ` +
        `Check the ids with \`ralph query tasks\` (an accepted task has left the file and needs no dependency).`,
      { missing },
    )
  }
  if (unique.includes(id)) throw invalid(`${id} cannot depend on itself.`)
  const cycle = findCycle(tasks, id, unique)
  if (cycle) {
    throw invalid(
      `These dependencies would make a cycle (${cycle.join(' → ')}), so none of those tasks could ever start. Drop one of them.`,
      {
        cycle,
      },
    )
  }
  return unique
}

function criteriaWarnings(id: string, accept: readonly string[]): string[] {
  return parseCriteria(accept)
    .filter((c) => !c.tagged)
    .map((c) => untaggedWarning(id, c))
}

function optionalId(value: string | undefined, pattern: RegExp, what: string): string | undefined {
  const v = value?.trim()
  if (!v) return undefined
  if (!pattern.test(v)) throw invalid(`"${v}" is not ${what}.`)
  return v
}
