import type { Db } from './database'

/**
 * A line a task's card shows about one of its MCP servers: it did not start, it stopped during the run, or some of its
 * tools were left out (capped).
 */
export interface McpServerNote {
  server: string
  kind: 'start' | 'lost' | 'capped'
  message: string
}

/** The MCP server notes of each run (migration 017). */
export class McpNotesRepo {
  constructor(private readonly db: Db) {}

  add(runId: number, note: McpServerNote, now = Date.now()): void {
    this.db
      .prepare(
        'INSERT INTO mcp_server_notes (run_id, server, kind, message, created_at) VALUES (?, ?, ?, ?, ?)',
      )
      .run(runId, note.server, note.kind, note.message, now)
  }

  /** A run's notes, in the order they were written. */
  forRun(runId: number): McpServerNote[] {
    return this.db
      .prepare<
        [number],
        McpServerNote
      >('SELECT server, kind, message FROM mcp_server_notes WHERE run_id = ? ORDER BY id')
      .all(runId)
  }
}
