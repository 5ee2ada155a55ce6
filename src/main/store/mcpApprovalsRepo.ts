import type { Db } from './database'

/** The user's approval of one project's MCP server, for one exact configuration (migration 018). */
export interface McpApproval {
  projectPath: string
  server: string
  fingerprint: string
  /** The approved configuration as JSON, placeholders unresolved. */
  config: string
  approvedAt: number
}

const COLUMNS = 'project_path AS projectPath, server, fingerprint, config, approved_at AS approvedAt'

export class McpApprovalsRepo {
  constructor(private readonly db: Db) {}

  /** A project's approvals, by server name. */
  forProject(projectPath: string): Map<string, McpApproval> {
    const rows = this.db
      .prepare<[string], McpApproval>(`SELECT ${COLUMNS} FROM mcp_approvals WHERE project_path = ?`)
      .all(projectPath)
    return new Map(rows.map((r) => [r.server, r]))
  }

  /** Approves (or approves again, for a new configuration) one server of a project. */
  put(row: Omit<McpApproval, 'approvedAt'>, now = Date.now()): McpApproval {
    this.db
      .prepare(
        `INSERT INTO mcp_approvals (project_path, server, fingerprint, config, approved_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (project_path, server) DO UPDATE SET fingerprint = excluded.fingerprint,
           config = excluded.config, approved_at = excluded.approved_at`,
      )
      .run(row.projectPath, row.server, row.fingerprint, row.config, now)
    return { ...row, approvedAt: now }
  }

  /** Withdraws an approval; whether there was one. */
  delete(projectPath: string, server: string): boolean {
    return (
      this.db
        .prepare('DELETE FROM mcp_approvals WHERE project_path = ? AND server = ?')
        .run(projectPath, server).changes > 0
    )
  }
}
