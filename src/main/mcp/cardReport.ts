// A task's MCP lines for its card: the loop's `mcp.servers` event (live) and the notes kept for the run
// (`mcp_server_notes`, read back with `mcp.taskNotes` after a reload).
import { McpNotesRepo, type Db } from '../store'
import type { McpReport, ServerStart } from './session'

export function mcpCardReport(db: Db, runId: number, emit: (servers: ServerStart[]) => void): McpReport {
  const notes = new McpNotesRepo(db)
  return { emit, record: (note) => notes.add(runId, note) }
}
