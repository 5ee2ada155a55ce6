import type { Migration } from './types'

export const snapshotOwnFiles: Migration = {
  version: 16,
  name: 'snapshot_own_files',
  up: `
    -- Of files_added/modified/deleted, Ralph's own files (.ralph/), so the timeline counts the user's files apart
    -- (#26). NULL on rows mirrored before the split was kept: the timeline then shows the totals as they were.
    ALTER TABLE snapshots ADD COLUMN ralph_added INTEGER;
    ALTER TABLE snapshots ADD COLUMN ralph_modified INTEGER;
    ALTER TABLE snapshots ADD COLUMN ralph_deleted INTEGER;
  `,
}
