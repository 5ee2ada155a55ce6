import type { Migration } from './types'

export const runLane: Migration = {
  version: 21,
  name: 'run_lane',
  up: `
    -- The lane a task ran in during a parallel build (issue #38): its run row is the user's project's (project_id,
    -- project_path), so the chat shows its card; the lane number tells the lanes' cards apart. NULL: no lane.
    ALTER TABLE runs ADD COLUMN lane INTEGER;
  `,
}
