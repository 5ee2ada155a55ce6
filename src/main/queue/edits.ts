// Building blocks of the pure mutations: find a record, replace, append or remove lines, resolve the spec.
import { AppError } from '../../shared/errors'
import type { PlanRecord, TaskRecord } from '../../shared/queue'
import { normaliseProjectPath } from '../snapshots'
import { recordLine, type QueueState } from './planFile'
import { currentSpec, taskRecords, type Located } from './records'

export const invalid = (message: string, details?: unknown) => new AppError('invalid-input', message, details)

/** Spec paths are stored project-relative with forward slashes, so `./specs/a.md` and `specs/a.md` are one spec. */
export function normaliseSpec(spec: string): string {
  return normaliseProjectPath(spec.trim())
}

export function specFor(state: QueueState, given: string | undefined, what: string): string {
  if (given !== undefined && given.trim() !== '') return normaliseSpec(given)
  const spec = currentSpec(state)
  if (spec === null) {
    throw invalid(
      `No spec is set, so the ${what} has no spec to belong to. Run \`ralph set-spec FILE\` first, or pass --spec FILE.`,
    )
  }
  return spec
}

export function findTask(state: QueueState, id: string): Located<TaskRecord> {
  const matches = taskRecords(state).filter((t) => t.rec.id === id)
  if (matches.length === 0) {
    throw new AppError(
      'not-found',
      `There is no task ${id} in the queue. \`ralph query tasks\` lists the ids (accepted tasks leave the file).`,
    )
  }
  if (matches.length > 1) {
    throw invalid(
      `Task id ${id} is on ${matches.length} lines (${matches.map((m) => m.line ?? 'new').join(', ')}), so it is ambiguous. Give one of them a new id in .ralph/plan.jsonl.`,
    )
  }
  return matches[0]!
}

export function replace(state: QueueState, index: number, record: PlanRecord): QueueState {
  const lines = state.lines.slice()
  lines[index] = recordLine(record, lines[index]!.line)
  return { exists: true, lines }
}

export const append = (state: QueueState, ...records: PlanRecord[]): QueueState => ({
  exists: true,
  lines: [...state.lines, ...records.map((r) => recordLine(r))],
})

export function remove(state: QueueState, indexes: ReadonlySet<number>): QueueState {
  return { exists: true, lines: state.lines.filter((_, i) => !indexes.has(i)) }
}
