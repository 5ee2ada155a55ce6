import type { Migration } from './types'

export const brainstorm: Migration = {
  version: 4,
  name: 'brainstorm',
  up: `
    -- One row per brainstorm session; the state machine lives in state_json (shared/brainstorm.ts validates it).
    CREATE TABLE brainstorm_sessions (
      id INTEGER PRIMARY KEY,
      project_id INTEGER REFERENCES projects(id) ON DELETE SET NULL,
      project_path TEXT NOT NULL,
      mode TEXT NOT NULL,
      phase TEXT NOT NULL,
      state_json TEXT NOT NULL,
      created_at INTEGER NOT NULL,
      updated_at INTEGER NOT NULL
    );
    CREATE INDEX brainstorm_sessions_project ON brainstorm_sessions(project_path, id);

    -- The ideas, numbered by the harness (I001 …); the ledger file is rebuilt from them if it goes missing.
    CREATE TABLE brainstorm_ideas (
      session_id INTEGER NOT NULL REFERENCES brainstorm_sessions(id) ON DELETE CASCADE,
      number INTEGER NOT NULL,
      domain TEXT NOT NULL,
      title TEXT NOT NULL,
      description TEXT NOT NULL,
      novelty TEXT,
      quote TEXT NOT NULL,
      created_at INTEGER NOT NULL,
      PRIMARY KEY (session_id, number)
    );

    -- The exchange: each model turn gets only the recent part of it.
    CREATE TABLE brainstorm_messages (
      id INTEGER PRIMARY KEY,
      session_id INTEGER NOT NULL REFERENCES brainstorm_sessions(id) ON DELETE CASCADE,
      role TEXT NOT NULL,
      phase TEXT NOT NULL,
      text TEXT NOT NULL,
      created_at INTEGER NOT NULL
    );
    CREATE INDEX brainstorm_messages_session ON brainstorm_messages(session_id, id);
  `,
}
