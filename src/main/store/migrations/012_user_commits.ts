import type { Migration } from './types'

export const userCommits: Migration = {
  version: 12,
  name: 'user_commits',
  up: `
    -- "Commit to my git" (store/userCommitsRepo.ts): the commits the app made in the user's own repository, one row
    -- per commit, so a task card still says "Committed <hash>" after a restart instead of offering a duplicate.
    CREATE TABLE user_commits (
      id INTEGER PRIMARY KEY,
      project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
      task INTEGER NOT NULL,
      -- The task's run when the commit was made (null when its rows were cleared).
      run_id INTEGER REFERENCES runs(id) ON DELETE SET NULL,
      -- The full hash: a short one can become ambiguous as the repository grows.
      hash TEXT NOT NULL,
      branch TEXT NOT NULL,
      -- The commit message's first line.
      subject TEXT NOT NULL,
      committed_at INTEGER NOT NULL
    );
    CREATE INDEX user_commits_task ON user_commits(project_id, task, id);
  `,
}
