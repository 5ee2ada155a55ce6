import type { Migration } from './types'

export const loop: Migration = {
  version: 3,
  name: 'loop',
  up: `
    -- One row per task the loop ran: enough, with the rows below, to replay it in the UI.
    CREATE TABLE runs (
      id INTEGER PRIMARY KEY,
      project_id INTEGER REFERENCES projects(id) ON DELETE CASCADE,
      project_path TEXT NOT NULL,
      task INTEGER NOT NULL,
      message TEXT NOT NULL,
      type TEXT,
      title TEXT,
      status TEXT NOT NULL,
      reason TEXT,
      detail TEXT,
      iterations INTEGER NOT NULL DEFAULT 0,
      started_at INTEGER NOT NULL,
      ended_at INTEGER
    );
    CREATE INDEX runs_project ON runs(project_path, task);

    CREATE TABLE iterations (
      id INTEGER PRIMARY KEY,
      run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
      number INTEGER NOT NULL,
      phase TEXT NOT NULL,
      signature TEXT,
      tool_calls INTEGER NOT NULL DEFAULT 0,
      outcome TEXT,
      prompt_tokens_estimate INTEGER,
      started_at INTEGER NOT NULL,
      ended_at INTEGER,
      UNIQUE (run_id, number)
    );

    CREATE TABLE tool_calls (
      id INTEGER PRIMARY KEY,
      iteration_id INTEGER NOT NULL REFERENCES iterations(id) ON DELETE CASCADE,
      seq INTEGER NOT NULL,
      name TEXT NOT NULL,
      args_json TEXT NOT NULL,
      ok INTEGER NOT NULL,
      result_bytes INTEGER NOT NULL,
      duration_ms INTEGER NOT NULL,
      error TEXT
    );
    CREATE INDEX tool_calls_iteration ON tool_calls(iteration_id, seq);

    CREATE TABLE gate_results (
      id INTEGER PRIMARY KEY,
      run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
      iteration INTEGER NOT NULL,
      attempt INTEGER NOT NULL,
      gate TEXT NOT NULL,
      severity TEXT NOT NULL,
      message TEXT NOT NULL
    );
    CREATE INDEX gate_results_run ON gate_results(run_id, iteration);

    CREATE TABLE llm_usage (
      id INTEGER PRIMARY KEY,
      run_id INTEGER REFERENCES runs(id) ON DELETE CASCADE,
      task INTEGER,
      iteration INTEGER,
      purpose TEXT NOT NULL,
      provider TEXT NOT NULL,
      model TEXT NOT NULL,
      input_tokens INTEGER NOT NULL,
      output_tokens INTEGER NOT NULL,
      duration_ms INTEGER NOT NULL,
      cost_usd REAL NOT NULL,
      created_at INTEGER NOT NULL
    );
    CREATE INDEX llm_usage_run ON llm_usage(run_id);
  `,
}
