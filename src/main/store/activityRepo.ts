import type { Db } from './database'

export interface LastRun {
  task: number
  title: string | null
  status: string
  startedAt: number
  endedAt: number | null
}

/** What the projects list shows of each project's work: its newest run (the loop's own rows, never a copy). */
export class ActivityRepo {
  constructor(private readonly db: Db) {}

  lastRun(projectPath: string): LastRun | null {
    return (
      this.db
        .prepare<[string], LastRun>(
          `SELECT task, title, status, started_at AS startedAt, ended_at AS endedAt
           FROM runs WHERE project_path = ? ORDER BY id DESC LIMIT 1`,
        )
        .get(projectPath) ?? null
    )
  }
}
