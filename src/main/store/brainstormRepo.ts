import { AppError } from '../../shared/errors'
import { describeIssues } from '../../shared/describeIssues'
import { sessionStateSchema, type BrainstormState, type DomainTag } from '../../shared/brainstorm'
import type { Db } from './database'

export interface BrainstormSessionRow {
  id: number
  projectPath: string
  state: BrainstormState
  createdAt: number
  updatedAt: number
}

export interface StoredIdea {
  number: number
  domain: DomainTag
  title: string
  description: string
  novelty: string | null
  quote: string
}

export interface StoredMessage {
  role: 'user' | 'facilitator'
  phase: string
  text: string
}

interface SessionRow {
  id: number
  project_path: string
  state_json: string
  created_at: number
  updated_at: number
}

/** Brainstorm sessions, their ideas and their exchange (migration 004). */
export class BrainstormRepo {
  constructor(private readonly db: Db) {}

  private toSession(row: SessionRow): BrainstormSessionRow {
    const parsed = sessionStateSchema.safeParse(JSON.parse(row.state_json))
    if (!parsed.success) {
      throw new AppError(
        'store',
        `Brainstorm session ${row.id} cannot be read (${describeIssues(parsed.error.issues)}).`,
      )
    }
    return {
      id: row.id,
      projectPath: row.project_path,
      state: parsed.data,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
    }
  }

  /** The project's newest session, finished or not. */
  latest(projectPath: string): BrainstormSessionRow | null {
    const row = this.db
      .prepare<
        [string],
        SessionRow
      >('SELECT * FROM brainstorm_sessions WHERE project_path = ? ORDER BY id DESC LIMIT 1')
      .get(projectPath)
    return row ? this.toSession(row) : null
  }

  get(id: number): BrainstormSessionRow | null {
    const row = this.db
      .prepare<[number], SessionRow>('SELECT * FROM brainstorm_sessions WHERE id = ?')
      .get(id)
    return row ? this.toSession(row) : null
  }

  create(
    projectPath: string,
    projectId: number | null,
    state: BrainstormState,
    now = Date.now(),
  ): BrainstormSessionRow {
    const info = this.db
      .prepare(
        `INSERT INTO brainstorm_sessions (project_id, project_path, mode, phase, state_json, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(projectId, projectPath, state.mode, state.phase, JSON.stringify(state), now, now)
    return { id: Number(info.lastInsertRowid), projectPath, state, createdAt: now, updatedAt: now }
  }

  save(id: number, state: BrainstormState, now = Date.now()): void {
    this.db
      .prepare(
        'UPDATE brainstorm_sessions SET phase = ?, mode = ?, state_json = ?, updated_at = ? WHERE id = ?',
      )
      .run(state.phase, state.mode, JSON.stringify(state), now, id)
  }

  /** Saves the state and the new ideas together, so a crash never leaves numbers without their ideas. */
  saveWithIdeas(id: number, state: BrainstormState, ideas: StoredIdea[], now = Date.now()): void {
    const insert = this.db.prepare(
      `INSERT INTO brainstorm_ideas (session_id, number, domain, title, description, novelty, quote, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    this.db.transaction(() => {
      for (const i of ideas)
        insert.run(id, i.number, i.domain, i.title, i.description, i.novelty, i.quote, now)
      this.save(id, state, now)
    })()
  }

  ideas(sessionId: number): StoredIdea[] {
    return this.db
      .prepare<[number], StoredIdea>(
        `SELECT number, domain, title, description, novelty, quote FROM brainstorm_ideas
         WHERE session_id = ? ORDER BY number`,
      )
      .all(sessionId)
  }

  addMessage(sessionId: number, message: StoredMessage, now = Date.now()): void {
    this.db
      .prepare(
        'INSERT INTO brainstorm_messages (session_id, role, phase, text, created_at) VALUES (?, ?, ?, ?, ?)',
      )
      .run(sessionId, message.role, message.phase, message.text, now)
  }

  /** The last `limit` messages, oldest first. */
  recentMessages(sessionId: number, limit: number): StoredMessage[] {
    return this.db
      .prepare<[number, number], StoredMessage>(
        `SELECT role, phase, text FROM (
           SELECT id, role, phase, text FROM brainstorm_messages WHERE session_id = ? ORDER BY id DESC LIMIT ?
         ) ORDER BY id`,
      )
      .all(sessionId, limit)
  }
}
