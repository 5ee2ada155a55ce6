import type { IterationDetailDto } from '../../shared/api/chat'
import type { Db } from './database'

export interface IterationRow {
  number: number
  phase: string
  outcome: string | null
  started_at: number
  ended_at: number | null
}

export interface ToolRow {
  iteration: number
  seq: number
  name: string
  args_json: string
  ok: number
  result_bytes: number
  duration_ms: number
  error: string | null
}

export type GateRow = IterationDetailDto['gates'][number]

/** A run's loop rows as a task card's expanded view reads them: its iterations, tool calls and gate results. */
export class TaskDetailRepo {
  constructor(private readonly db: Db) {}

  /** The project folder a run belongs to; undefined for an unknown run. */
  projectPathOf(runId: number): string | undefined {
    return this.db
      .prepare<[number], { project_path: string }>('SELECT project_path FROM runs WHERE id = ?')
      .get(runId)?.project_path
  }

  iterations(runId: number): IterationRow[] {
    return this.db
      .prepare<
        [number],
        IterationRow
      >('SELECT number, phase, outcome, started_at, ended_at FROM iterations WHERE run_id = ? ORDER BY number')
      .all(runId)
  }

  /** The tool calls of the run's iterations numbered `from` and later, in order. */
  toolCalls(runId: number, from: number): ToolRow[] {
    return this.db
      .prepare<[number, number], ToolRow>(
        `SELECT i.number AS iteration, t.seq, t.name, t.args_json, t.ok, t.result_bytes, t.duration_ms, t.error
       FROM tool_calls t JOIN iterations i ON i.id = t.iteration_id WHERE i.run_id = ? AND i.number >= ?
       ORDER BY i.number, t.seq`,
      )
      .all(runId, from)
  }

  gateResults(runId: number): GateRow[] {
    return this.db
      .prepare<
        [number],
        GateRow
      >('SELECT iteration, attempt, gate, severity, message FROM gate_results WHERE run_id = ? ORDER BY id')
      .all(runId)
  }
}
