import type { Db } from './database'

/** What Ralph last saw of the repository around a project folder, and whether it is trusted (migration 014). */
export interface RepoTrustRow {
  projectPath: string
  /** The repository's git folder; null when the folder was in no repository. */
  gitDir: string | null
  fingerprint: string
  /** The task that made the repository untrusted; null while it is trusted. */
  untrustedTask: number | null
  untrustedReason: 'created' | 'changed' | null
  /** A task that began and whose end was not compared yet. */
  pendingTask: number | null
  confirmedAt: number | null
  updatedAt: number
}

const COLUMNS = `project_path AS projectPath, git_dir AS gitDir, fingerprint, untrusted_task AS untrustedTask,
  untrusted_reason AS untrustedReason, pending_task AS pendingTask, confirmed_at AS confirmedAt, updated_at AS updatedAt`

export class RepoTrustRepo {
  constructor(private readonly db: Db) {}

  get(projectPath: string): RepoTrustRow | null {
    return (
      this.db
        .prepare<[string], RepoTrustRow>(`SELECT ${COLUMNS} FROM user_repo_trust WHERE project_path = ?`)
        .get(projectPath) ?? null
    )
  }

  /** Writes the whole row (insert or replace): every change is one statement, so a crash leaves one or the other. */
  put(row: Omit<RepoTrustRow, 'updatedAt'>, now = Date.now()): RepoTrustRow {
    this.db
      .prepare(
        `INSERT INTO user_repo_trust (project_path, git_dir, fingerprint, untrusted_task, untrusted_reason,
           pending_task, confirmed_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (project_path) DO UPDATE SET git_dir = excluded.git_dir, fingerprint = excluded.fingerprint,
           untrusted_task = excluded.untrusted_task, untrusted_reason = excluded.untrusted_reason,
           pending_task = excluded.pending_task, confirmed_at = excluded.confirmed_at, updated_at = excluded.updated_at`,
      )
      .run(
        row.projectPath,
        row.gitDir,
        row.fingerprint,
        row.untrustedTask,
        row.untrustedReason,
        row.pendingTask,
        row.confirmedAt,
        now,
      )
    return { ...row, updatedAt: now }
  }
}
