import type { Migration } from './types'

export const snapshotMirror: Migration = {
  version: 10,
  name: 'snapshot_mirror',
  up: `
    -- The rest of a snapshot's metadata, so the timeline pages, filters and searches from SQLite alone.
    ALTER TABLE snapshots ADD COLUMN skipped_total INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE snapshots ADD COLUMN rollback_target TEXT;
  `,
}
