import type { Migration } from './types'

export const receipts: Migration = {
  version: 7,
  name: 'receipts',
  up: `
    -- A task's final receipt (tokens, cost, calls, iterations, checkpoints, limit waits) as its event carried it.
    ALTER TABLE runs ADD COLUMN receipt_json TEXT;

    -- Iterations that ended on their context budget, or on a provider's context-length error.
    CREATE TABLE checkpoints (
      id INTEGER PRIMARY KEY,
      run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
      iteration INTEGER NOT NULL,
      reason TEXT NOT NULL,
      written_by TEXT NOT NULL,
      used_tokens INTEGER NOT NULL,
      window_tokens INTEGER NOT NULL,
      created_at INTEGER NOT NULL
    );
    CREATE INDEX checkpoints_run ON checkpoints(run_id);

    -- Waits for a provider's usage limit. ended_at is NULL while the task waits; outcome: resumed | cancelled |
    -- interrupted (the process died while waiting).
    CREATE TABLE limit_waits (
      id INTEGER PRIMARY KEY,
      run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
      iteration INTEGER,
      started_at INTEGER NOT NULL,
      reset_at INTEGER NOT NULL,
      ended_at INTEGER,
      outcome TEXT
    );
    CREATE INDEX limit_waits_run ON limit_waits(run_id);
  `,
}
