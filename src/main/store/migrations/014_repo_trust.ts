import type { Migration } from './types'

export const repoTrust: Migration = {
  version: 14,
  name: 'repo_trust',
  up: `
    -- Whether git run by Ralph may act on the user's repository's own config and hooks (userGit/trust.ts,
    -- store/repoTrustRepo.ts). One row per project folder: what Ralph last saw of the repository around it (its
    -- git folder and a fingerprint of its config, included files and hooks), recorded when Ralph first sees the
    -- folder and before each task, compared after each task. A repository a task created, or whose config or
    -- hooks changed during a task, is untrusted "by task N" until the user confirms it.
    CREATE TABLE user_repo_trust (
      project_path TEXT PRIMARY KEY,
      -- The repository's git folder when last seen; NULL when the folder was in no repository.
      git_dir TEXT,
      fingerprint TEXT NOT NULL,
      -- NULL while trusted.
      untrusted_task INTEGER,
      untrusted_reason TEXT CHECK (untrusted_reason IN ('created', 'changed')),
      -- A task that began and whose end was not compared yet (its process may have died): compared at the next look.
      pending_task INTEGER,
      confirmed_at INTEGER,
      updated_at INTEGER NOT NULL
    );
  `,
}
