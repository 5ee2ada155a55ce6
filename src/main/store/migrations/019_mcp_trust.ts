import type { Migration } from './types'

export const mcpTrust: Migration = {
  version: 19,
  name: 'mcp_trust',
  up: `
    -- The user's approval of a project's MCP server (issue 34, DESIGN.md §9): a server from a project's .mcp.json is
    -- a stranger until approved, and the approval holds for that exact configuration only (the fingerprint of its
    -- canonical form: command, args, env, url, headers, placeholders). A changed entry waits for approval again.
    CREATE TABLE mcp_approvals (
      project_path TEXT NOT NULL,
      server TEXT NOT NULL,
      fingerprint TEXT NOT NULL,
      -- The approved configuration as JSON, placeholders unresolved (never a vault value).
      config TEXT NOT NULL,
      approved_at INTEGER NOT NULL,
      PRIMARY KEY (project_path, server)
    );

    -- A task card's MCP lines may also say which tools were left out (kind 'capped': a server listed more tools, or
    -- larger ones, than a prompt can carry). SQLite cannot change a CHECK in place: the table is copied.
    CREATE TABLE mcp_server_notes_new (
      id INTEGER PRIMARY KEY,
      run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
      server TEXT NOT NULL,
      kind TEXT NOT NULL CHECK (kind IN ('start', 'lost', 'capped')),
      message TEXT NOT NULL,
      created_at INTEGER NOT NULL
    );
    INSERT INTO mcp_server_notes_new (id, run_id, server, kind, message, created_at)
      SELECT id, run_id, server, kind, message, created_at FROM mcp_server_notes;
    DROP TABLE mcp_server_notes;
    ALTER TABLE mcp_server_notes_new RENAME TO mcp_server_notes;
    CREATE INDEX mcp_server_notes_run ON mcp_server_notes(run_id, id);
  `,
}
