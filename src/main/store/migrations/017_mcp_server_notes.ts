import type { Migration } from './types'

export const mcpServerNotes: Migration = {
  version: 17,
  name: 'mcp_server_notes',
  up: `
    -- What a task's card says of its MCP servers (issue 27), kept so it shows after a reload: a server that did not
    -- start for the run (kind 'start': a bad command, an exit during set-up, no answer in time), or one that stopped
    -- during it (kind 'lost'). Servers that started and kept running leave no row.
    CREATE TABLE mcp_server_notes (
      id INTEGER PRIMARY KEY,
      run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
      server TEXT NOT NULL,
      kind TEXT NOT NULL CHECK (kind IN ('start', 'lost')),
      message TEXT NOT NULL,
      created_at INTEGER NOT NULL
    );
    CREATE INDEX mcp_server_notes_run ON mcp_server_notes(run_id, id);
  `,
}
