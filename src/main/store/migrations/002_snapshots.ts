import type { Migration } from './types'

export const snapshots: Migration = {
  version: 2,
  name: 'snapshots',
  up: `
    -- Mirrors the shadow git store so the timeline can list and filter without calling git.
    CREATE TABLE snapshots (
      id INTEGER PRIMARY KEY,
      project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
      tag TEXT NOT NULL,
      commit_sha TEXT NOT NULL,
      kind TEXT NOT NULL,
      task INTEGER,
      message TEXT NOT NULL DEFAULT '',
      created_at INTEGER NOT NULL,
      files_added INTEGER NOT NULL DEFAULT 0,
      files_modified INTEGER NOT NULL DEFAULT 0,
      files_deleted INTEGER NOT NULL DEFAULT 0,
      skipped_json TEXT NOT NULL DEFAULT '[]',
      duration_ms INTEGER NOT NULL DEFAULT 0,
      UNIQUE (project_id, tag)
    );
    CREATE INDEX snapshots_project_time ON snapshots(project_id, created_at DESC, id DESC);
    CREATE INDEX snapshots_project_task ON snapshots(project_id, task);
  `,
}
