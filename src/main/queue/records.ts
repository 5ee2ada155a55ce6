import type { IssueRecord, PlanRecord, RejectRecord, SpecRecord, TaskRecord } from '../../shared/queue'
import type { PlanLine, QueueState } from './planFile'

/** A record with where it sits: `index` into the state's lines (what mutations address), `line` for people. */
export interface Located<T extends PlanRecord> {
  index: number
  line: number | null
  rec: T
}

function located<T extends PlanRecord>(state: QueueState, t: T['t']): Located<T>[] {
  const out: Located<T>[] = []
  state.lines.forEach((l: PlanLine, index) => {
    if (l.record?.t === t) out.push({ index, line: l.line, rec: l.record as T })
  })
  return out
}

export const taskRecords = (state: QueueState) => located<TaskRecord>(state, 'task')
export const issueRecords = (state: QueueState) => located<IssueRecord>(state, 'issue')
export const tombstoneRecords = (state: QueueState) => located<RejectRecord>(state, 'reject')
export const specRecords = (state: QueueState) => located<SpecRecord>(state, 'spec')

/** The first spec line names the active spec (seed 001); later ones are reported as warnings. */
export const currentSpec = (state: QueueState): string | null => specRecords(state)[0]?.rec.spec ?? null

/** Every id the file uses, tombstones included: a new id must differ from all of them. */
export function takenIds(state: QueueState): Set<string> {
  const ids = new Set<string>()
  for (const l of state.lines) if (l.record && l.record.t !== 'spec') ids.add(l.record.id)
  return ids
}

export const priorityRank = (p: TaskRecord['priority']): number => (p === 'high' ? 0 : p === 'low' ? 2 : 1)
