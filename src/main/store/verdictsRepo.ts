import type { CriterionKind, VerdictAnswer } from '../../shared/verdicts'
import type { Db } from './database'

export type { VerdictAnswer }

export interface VerdictInput {
  projectId: number | null
  projectPath: string
  runId: number | null
  taskId: string
  nonce: string
  ref: string
  kind: CriterionKind
  criterion: string
  answer: VerdictAnswer
  reason: string
  costUsd: number
}

export interface VerdictRow extends VerdictInput {
  id: number
  createdAt: number
}

const COLUMNS = `id, project_id AS projectId, project_path AS projectPath, run_id AS runId, task_id AS taskId, nonce,
  ref, kind, criterion, answer, reason, cost_usd AS costUsd, created_at AS createdAt`

/** Every verdict of every verification (migration 009), oldest first within a task or run. */
export class VerdictsRepo {
  constructor(private readonly db: Db) {}

  insert(v: VerdictInput, now = Date.now()): number {
    return Number(
      this.db
        .prepare(
          `INSERT INTO verdicts (project_id, project_path, run_id, task_id, nonce, ref, kind, criterion, answer, reason,
             cost_usd, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(
          v.projectId,
          v.projectPath,
          v.runId,
          v.taskId,
          v.nonce,
          v.ref,
          v.kind,
          v.criterion,
          v.answer,
          v.reason,
          v.costUsd,
          now,
        ).lastInsertRowid,
    )
  }

  /** One verification's verdicts in one transaction: a crash never leaves half of them. */
  insertMany(rows: readonly VerdictInput[], now = Date.now()): void {
    this.db.transaction(() => {
      for (const r of rows) this.insert(r, now)
    })()
  }

  listByTask(projectPath: string, taskId: string): VerdictRow[] {
    return this.db
      .prepare<
        [string, string],
        VerdictRow
      >(`SELECT ${COLUMNS} FROM verdicts WHERE project_path = ? AND task_id = ? ORDER BY id`)
      .all(projectPath, taskId)
  }

  listByRun(runId: number): VerdictRow[] {
    return this.db
      .prepare<[number], VerdictRow>(`SELECT ${COLUMNS} FROM verdicts WHERE run_id = ? ORDER BY id`)
      .all(runId)
  }
}
