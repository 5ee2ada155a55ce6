import type { Db } from './database'

/** A commit "Commit to my git" made in the user's repository (migration 012). */
export interface UserCommitRow {
  projectId: number
  task: number
  runId: number | null
  /** The full hash. */
  hash: string
  branch: string
  /** The message's first line. */
  subject: string
  committedAt: number
}

const COLUMNS = `project_id AS projectId, task, run_id AS runId, hash, branch, subject, committed_at AS committedAt`

/** The commits the app made for tasks; a task committed again (its first commit reset away) has several. */
export class UserCommitsRepo {
  constructor(private readonly db: Db) {}

  record(c: Omit<UserCommitRow, 'committedAt'>, now = Date.now()): void {
    this.db
      .prepare(
        `INSERT INTO user_commits (project_id, task, run_id, hash, branch, subject, committed_at)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(c.projectId, c.task, c.runId, c.hash, c.branch, c.subject, now)
  }

  /** A task's latest commit, or null when it was never committed. */
  latest(projectId: number, task: number): UserCommitRow | null {
    return (
      this.db
        .prepare<
          [number, number],
          UserCommitRow
        >(`SELECT ${COLUMNS} FROM user_commits WHERE project_id = ? AND task = ? ORDER BY id DESC LIMIT 1`)
        .get(projectId, task) ?? null
    )
  }

  /** Each committed task's latest commit in a project, by task number. */
  latestPerTask(projectId: number): UserCommitRow[] {
    return this.db
      .prepare<[number], UserCommitRow>(
        `SELECT ${COLUMNS} FROM user_commits WHERE id IN
           (SELECT MAX(id) FROM user_commits WHERE project_id = ? GROUP BY task)
         ORDER BY task`,
      )
      .all(projectId)
  }
}
