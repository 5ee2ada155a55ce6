import type { Migration } from './types'

export const escalations: Migration = {
  version: 13,
  name: 'escalations',
  up: `
    -- A queue task the build handed to a person (DESIGN.md §16, seed 004 "phase: needs_human"): after its third
    -- failure (rolled back) or stuck again after a re-plan. Kept here, not in .ralph/plan.jsonl, whose format is
    -- seed 001's and which the rollback restores byte for byte. While a row is open (cleared_at NULL) no build
    -- starts the task; the user clears it (retry, an edit of its notes or criteria, removing the task).
    CREATE TABLE queue_escalations (
      id INTEGER PRIMARY KEY,
      project_id INTEGER REFERENCES projects(id) ON DELETE CASCADE,
      project_path TEXT NOT NULL,
      task_id TEXT NOT NULL,
      kind TEXT NOT NULL CHECK (kind IN ('failures', 'stuck')),
      message TEXT NOT NULL,
      failures INTEGER NOT NULL DEFAULT 0,
      rolled_back_to TEXT,
      safety_tag TEXT,
      created_at INTEGER NOT NULL,
      cleared_at INTEGER,
      cleared_by TEXT CHECK (cleared_by IN ('retry', 'edit', 'remove', 'gone'))
    );
    CREATE UNIQUE INDEX queue_escalations_open ON queue_escalations(project_path, task_id) WHERE cleared_at IS NULL;

    -- Rejections (plan.jsonl tombstones) that do not count toward a task's failures: a Re-plan the user asked
    -- for, or the failures before a retry the user chose. A tombstone is known by its task, done_at and reason.
    CREATE TABLE queue_waived_rejections (
      id INTEGER PRIMARY KEY,
      project_path TEXT NOT NULL,
      task_id TEXT NOT NULL,
      done_at TEXT NOT NULL,
      reason TEXT NOT NULL,
      why TEXT NOT NULL CHECK (why IN ('replan', 'retry')),
      created_at INTEGER NOT NULL,
      UNIQUE (project_path, task_id, done_at, reason)
    );
  `,
}
