import type { CommandOutcome } from './commands'
import { normaliseSpec, remove } from './edits'
import { recordLine, type PlanLine, type QueueState } from './planFile'
import { specRecords, taskRecords, tombstoneRecords } from './records'

/** The spec line goes first (seed 001's layout); extra spec lines are dropped so one spec is active. */
function withSpec(state: QueueState, spec: string): QueueState {
  const specs = specRecords(state)
  const record = { t: 'spec' as const, spec }
  if (specs.length === 0) return { exists: true, lines: [recordLine(record), ...state.lines] }
  const first = specs[0]!
  const drop = new Set(specs.slice(1).map((s) => s.index))
  const lines: PlanLine[] = state.lines.flatMap((l, i) => {
    if (drop.has(i)) return []
    if (i !== first.index) return [l]
    return first.rec.spec === spec ? [l] : [recordLine({ ...first.rec, spec }, l.line)]
  })
  return { exists: true, lines }
}

export function setSpec(state: QueueState, specIn: string): CommandOutcome {
  const spec = normaliseSpec(specIn)
  return { state: withSpec(state, spec), message: `set-spec ${spec}`, ids: [], spec, warnings: [] }
}

export function startPlan(state: QueueState, specIn: string): CommandOutcome {
  const spec = normaliseSpec(specIn)
  const tasks = taskRecords(state)
  const tombstones = tombstoneRecords(state)
  const drop = new Set([...tasks, ...tombstones].map((r) => r.index))
  const parts = [`plan ${spec}`]
  if (tasks.length > 0) parts.push(`cancelled ${tasks.map((t) => t.rec.id).join(', ')}`)
  if (tombstones.length > 0)
    parts.push(`cleared ${tombstones.length} tombstone${tombstones.length > 1 ? 's' : ''}`)
  return {
    state: withSpec(remove(state, drop), spec),
    message: parts.join('; '),
    ids: tasks.map((t) => t.rec.id),
    spec,
    warnings: [],
  }
}
