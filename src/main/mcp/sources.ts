// Every MCP server a project can use: its `.mcp.json` and the app-level list, each with its per-project switch,
// where it runs, whether its `${NAME}` placeholders have values in the vault, and whether the user approved it.
// An app-level server keeps its name: a project entry of the same name is refused, never silently put in its place
// (its tools would reach the model under the name of the server the user chose, with nothing to tell them apart).
import type { AppMcpServers } from './appServers'
import { ProjectApprovals, waitingMessage, type ApprovalState } from './approval'
import {
  MCP_FILE,
  readProjectServers,
  serverLocation,
  type ConfigProblem,
  type DeclaredServer,
} from './config'
import { placeholderNames, resolvePlaceholders } from './placeholders'
import { disabledServers } from './switches'

export interface ListedServer extends DeclaredServer {
  /** 'stdio' runs in the sandbox on this machine; 'http' and 'sse' are remote. */
  location: 'stdio' | 'http' | 'sse'
  enabled: boolean
  /** Placeholder names the vault has no value for: the server cannot start until they are stored. */
  missingSecrets: string[]
  /** The placeholder names it reads from the vault. */
  secrets: string[]
  approval: ApprovalState
}

export interface ServerList {
  servers: ListedServer[]
  problems: ConfigProblem[]
}

const shadowed = (name: string): ConfigProblem => ({
  server: name,
  message:
    `${MCP_FILE}: server "${name}" has the name of an app-level server, which is used instead; the project's ` +
    'entry is not started. Rename it in .mcp.json to use both.',
})

/**
 * The project's and the app's servers, switches and approvals applied; values stay unresolved (for display).
 * `approvalsOf` is the project whose approvals count, when the task runs in a copy of it (a lane's folder): the
 * user approved the entry for their project, and the copy's `.mcp.json` must still match it byte for byte in meaning.
 */
export async function listServers(
  projectDir: string,
  app: AppMcpServers | null,
  approvalsOf = projectDir,
): Promise<ServerList> {
  const project = await readProjectServers(projectDir)
  const disabled = new Set(await disabledServers(projectDir))
  const approvals = app ? await app.approvals(approvalsOf) : await ProjectApprovals.of(null, approvalsOf)
  const appServers = app?.list() ?? []
  const appNames = new Set(appServers.map((s) => s.name))
  const own = project.servers.filter((s) => !appNames.has(s.name))
  const problems = [
    ...project.problems,
    ...project.servers.filter((s) => appNames.has(s.name)).map((s) => shadowed(s.name)),
  ]
  const lookup = (name: string) => app?.secret(name) ?? null
  const servers = [...own, ...appServers].map((s) => {
    const resolved = resolvePlaceholders(s.config, lookup)
    return {
      ...s,
      location: serverLocation(s.config),
      enabled: !disabled.has(s.name),
      missingSecrets: 'missing' in resolved ? resolved.missing : [],
      secrets: placeholderNames(s.config),
      approval: approvals.state(s),
    }
  })
  return { servers, problems }
}

/**
 * The servers to start for a task: the enabled and approved ones with their placeholders filled from the vault, and
 * a reason for each enabled one that cannot start (a mistake in `.mcp.json`, no approval, a secret not stored). A
 * server that waits for approval is never resolved: no vault value reaches it.
 */
export async function serversToStart(
  projectDir: string,
  app: AppMcpServers | null,
  approvalsOf = projectDir,
): Promise<{ servers: DeclaredServer[]; refused: { server: string; message: string }[] }> {
  const { servers, problems } = await listServers(projectDir, app, approvalsOf)
  const refused = problems.map((p) => ({ server: p.server ?? MCP_FILE, message: p.message }))
  const ready: DeclaredServer[] = []
  const lookup = (name: string) => app?.secret(name) ?? null
  for (const s of servers) {
    if (!s.enabled) continue
    if (s.approval === 'waiting' || s.approval === 'changed') {
      refused.push({ server: s.name, message: waitingMessage(s.name, s.approval) })
      continue
    }
    const resolved = resolvePlaceholders(s.config, lookup)
    if ('missing' in resolved) {
      refused.push({
        server: s.name,
        message: `needs ${resolved.missing.map((n) => `the secret ${n}`).join(' and ')}, which Ralph's vault does not hold`,
      })
    } else ready.push({ name: s.name, origin: s.origin, config: resolved.config })
  }
  return { servers: ready, refused }
}
