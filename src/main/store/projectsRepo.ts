import type { Db } from './database'
import type { Project } from '../../shared/project'

interface Row {
  id: number
  path: string
  name: string
  created_at: number
  last_opened_at: number
}

const toProject = (row: Row): Project => ({
  id: row.id,
  path: row.path,
  name: row.name,
  createdAt: row.created_at,
  lastOpenedAt: row.last_opened_at,
})

export class ProjectsRepo {
  constructor(private readonly db: Db) {}

  /** Registers the folder, or bumps its last-opened time if it is known already. */
  upsert(path: string, name: string, now: number): Project {
    const row = this.db
      .prepare<[string, string, number, number], Row>(
        `INSERT INTO projects (path, name, created_at, last_opened_at) VALUES (?, ?, ?, ?)
         ON CONFLICT(path) DO UPDATE SET last_opened_at = excluded.last_opened_at
         RETURNING *`,
      )
      .get(path, name, now, now)
    return toProject(row!)
  }

  get(id: number): Project | null {
    const row = this.db.prepare<[number], Row>('SELECT * FROM projects WHERE id = ?').get(id)
    return row ? toProject(row) : null
  }

  findByPath(path: string): Project | null {
    const row = this.db.prepare<[string], Row>('SELECT * FROM projects WHERE path = ?').get(path)
    return row ? toProject(row) : null
  }

  listRecent(limit = 50): Project[] {
    return this.db
      .prepare<[number], Row>('SELECT * FROM projects ORDER BY last_opened_at DESC, id DESC LIMIT ?')
      .all(limit)
      .map(toProject)
  }

  remove(id: number): void {
    this.db.prepare('DELETE FROM projects WHERE id = ?').run(id)
  }
}
