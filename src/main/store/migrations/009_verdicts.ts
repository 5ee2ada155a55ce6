import type { Migration } from './types'

export const verdicts: Migration = {
  version: 9,
  name: 'verdicts',
  up: `
    -- Every verdict of a task's verification (DESIGN.md §16): the deterministic checks and each acceptance
    -- criterion, with the answer, the reason, the nonce that sealed it (one per verification) and its model cost.
    -- task_id is the queue's id (t-xxxx), unique within a project.
    CREATE TABLE verdicts (
      id INTEGER PRIMARY KEY,
      project_id INTEGER REFERENCES projects(id) ON DELETE CASCADE,
      project_path TEXT NOT NULL,
      run_id INTEGER REFERENCES runs(id) ON DELETE CASCADE,
      task_id TEXT NOT NULL,
      nonce TEXT NOT NULL,
      ref TEXT NOT NULL,
      kind TEXT NOT NULL CHECK (kind IN ('DET', 'LLM')),
      criterion TEXT NOT NULL,
      answer TEXT NOT NULL CHECK (answer IN ('YES', 'NO', 'NEEDS_HUMAN')),
      reason TEXT NOT NULL,
      cost_usd REAL NOT NULL DEFAULT 0,
      created_at INTEGER NOT NULL
    );
    CREATE INDEX verdicts_task ON verdicts(project_path, task_id, id);
    CREATE INDEX verdicts_run ON verdicts(run_id);
  `,
}
