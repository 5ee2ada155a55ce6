import type { QueueEscalation } from '../../shared/api/queue'
import type { Db } from './database'

export type EscalationKind = QueueEscalation['kind']
/** How an escalation ended: the user retried, edited or removed the task, or the task left plan.jsonl. */
export type EscalationClearedBy = 'retry' | 'edit' | 'remove' | 'gone'

export interface EscalationInput {
  projectId: number | null
  projectPath: string
  taskId: string
  kind: EscalationKind
  message: string
  failures: number
  rolledBackTo: string | null
  safetyTag: string | null
}

/** A tombstone of plan.jsonl, known by its task, done_at and reason (seed 001's `reject` record). */
export interface TombstoneKey {
  doneAt: string
  reason: string
}

const COLUMNS = `task_id AS taskId, kind, message, failures, rolled_back_to AS rolledBackTo, safety_tag AS safetyTag,
  created_at AS at`

const key = (t: TombstoneKey) => `${t.doneAt}\n${t.reason}`

/**
 * Escalated queue tasks and the rejections that do not count as failures (migration 013). Keyed by the project's
 * folder, as verdicts are: the CLI and the app address the same project by it.
 */
export class EscalationsRepo {
  constructor(private readonly db: Db) {}

  /** Opens the task's escalation (an open one is replaced: one per task at a time). */
  escalate(input: EscalationInput, now = Date.now()): void {
    this.db.transaction(() => {
      this.db
        .prepare(
          `DELETE FROM queue_escalations WHERE project_path = ? AND task_id = ? AND cleared_at IS NULL`,
        )
        .run(input.projectPath, input.taskId)
      this.db
        .prepare(
          `INSERT INTO queue_escalations (project_id, project_path, task_id, kind, message, failures, rolled_back_to,
             safety_tag, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(
          input.projectId,
          input.projectPath,
          input.taskId,
          input.kind,
          input.message,
          input.failures,
          input.rolledBackTo,
          input.safetyTag,
          now,
        )
    })()
  }

  /** The task's open escalation, or null. */
  open(projectPath: string, taskId: string): QueueEscalation | null {
    return (
      this.db
        .prepare<
          [string, string],
          QueueEscalation
        >(`SELECT ${COLUMNS} FROM queue_escalations WHERE project_path = ? AND task_id = ? AND cleared_at IS NULL`)
        .get(projectPath, taskId) ?? null
    )
  }

  /** Every open escalation of a project, oldest first. */
  listOpen(projectPath: string): QueueEscalation[] {
    return this.db
      .prepare<
        [string],
        QueueEscalation
      >(`SELECT ${COLUMNS} FROM queue_escalations WHERE project_path = ? AND cleared_at IS NULL ORDER BY id`)
      .all(projectPath)
  }

  /** Ends the task's open escalation (kept as history); false when it had none. */
  clear(projectPath: string, taskId: string, by: EscalationClearedBy, now = Date.now()): boolean {
    return (
      this.db
        .prepare(
          `UPDATE queue_escalations SET cleared_at = ?, cleared_by = ?
           WHERE project_path = ? AND task_id = ? AND cleared_at IS NULL`,
        )
        .run(now, by, projectPath, taskId).changes > 0
    )
  }

  /**
   * The user's retry: the task's open escalation ends and its rejections so far stop counting, so the next build
   * gives it fresh attempts. Returns the escalation it ended, or null when there was none (nothing changes).
   */
  retry(
    projectPath: string,
    taskId: string,
    tombstones: readonly TombstoneKey[],
    now = Date.now(),
  ): QueueEscalation | null {
    return this.db.transaction(() => {
      const open = this.open(projectPath, taskId)
      if (!open) return null
      this.waive(projectPath, taskId, tombstones, 'retry', now)
      this.clear(projectPath, taskId, 'retry', now)
      return open
    })()
  }

  /** Marks tombstones of the task as not counting toward its failures. */
  waive(
    projectPath: string,
    taskId: string,
    tombstones: readonly TombstoneKey[],
    why: 'replan' | 'retry',
    now = Date.now(),
  ): void {
    const insert = this.db.prepare(
      `INSERT OR IGNORE INTO queue_waived_rejections (project_path, task_id, done_at, reason, why, created_at)
       VALUES (?, ?, ?, ?, ?, ?)`,
    )
    this.db.transaction(() => {
      for (const t of tombstones) insert.run(projectPath, taskId, t.doneAt, t.reason, why, now)
    })()
  }

  /** Takes back a waiver whose rejection was never written. */
  unwaive(projectPath: string, taskId: string, tombstone: TombstoneKey): void {
    this.db
      .prepare(
        `DELETE FROM queue_waived_rejections WHERE project_path = ? AND task_id = ? AND done_at = ? AND reason = ?`,
      )
      .run(projectPath, taskId, tombstone.doneAt, tombstone.reason)
  }

  /** How many of these tombstones of the task count as failures (those not waived). */
  countFailures(projectPath: string, taskId: string, tombstones: readonly TombstoneKey[]): number {
    if (tombstones.length === 0) return 0
    const waived = new Set(
      this.db
        .prepare<
          [string, string],
          { doneAt: string; reason: string }
        >(`SELECT done_at AS doneAt, reason FROM queue_waived_rejections WHERE project_path = ? AND task_id = ?`)
        .all(projectPath, taskId)
        .map(key),
    )
    return tombstones.filter((t) => !waived.has(key(t))).length
  }
}
