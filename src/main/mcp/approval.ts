// A project's MCP server is a stranger until the user approves it (DESIGN.md §9): the approval is kept in the app's
// data (never in the project, which the model writes) and pinned to the server's exact configuration — a fingerprint
// of its canonical form, placeholders unresolved — so any change (by the model, a pull, a hand edit) asks again.
// App-level servers were added by the user in Settings: they count as approved.
import { createHash } from 'node:crypto'
import { realpath } from 'node:fs/promises'
import { McpApprovalsRepo, type Db } from '../store'
import type { DeclaredServer, ServerConfig } from './config'

/** Where a server stands: the user's own (app-level), approved as it is, never approved, or changed since. */
export type ApprovalState = 'user' | 'approved' | 'waiting' | 'changed'

const sorted = (m: Record<string, string> | undefined) =>
  Object.entries(m ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))

/** The configuration in one canonical form: the same server written two ways is the same server. */
export function canonicalConfig(config: ServerConfig): unknown {
  if ('url' in config) return { type: config.type, url: config.url, headers: sorted(config.headers) }
  return { type: 'stdio', command: config.command, args: config.args ?? [], env: sorted(config.env) }
}

export function serverFingerprint(config: ServerConfig): string {
  return createHash('sha256')
    .update(JSON.stringify(canonicalConfig(config)))
    .digest('hex')
}

/** The approvals of one project (its real path: the same folder reached two ways is one project). */
export class ProjectApprovals {
  private constructor(
    private readonly repo: McpApprovalsRepo | null,
    private readonly projectPath: string,
  ) {}

  /** `db` null: no store, so nothing is approved. */
  static async of(db: Db | null, projectDir: string): Promise<ProjectApprovals> {
    return new ProjectApprovals(db ? new McpApprovalsRepo(db) : null, await realpath(projectDir))
  }

  state(server: DeclaredServer): ApprovalState {
    if (server.origin === 'app') return 'user'
    const approved = this.repo?.forProject(this.projectPath).get(server.name)
    if (!approved) return 'waiting'
    return approved.fingerprint === serverFingerprint(server.config) ? 'approved' : 'changed'
  }

  approve(server: DeclaredServer, now = Date.now()): void {
    if (!this.repo) throw new Error('approvals need the app database')
    this.repo.put(
      {
        projectPath: this.projectPath,
        server: server.name,
        fingerprint: serverFingerprint(server.config),
        config: JSON.stringify(canonicalConfig(server.config)),
      },
      now,
    )
  }

  revoke(name: string): boolean {
    return this.repo?.delete(this.projectPath, name) ?? false
  }
}

/** Why a project's server did not start, and how to let it: for the card, the event and `ralph mcp`. */
export function waitingMessage(name: string, state: 'waiting' | 'changed'): string {
  const why =
    state === 'changed'
      ? 'its entry in .mcp.json changed since you approved it, so it waits for your approval again'
      : 'it is new in .mcp.json and waits for your approval'
  return `${why}: run "ralph mcp approve ${name}", or Approve it in Settings → MCP servers`
}
