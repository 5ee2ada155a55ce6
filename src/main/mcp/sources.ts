// Every MCP server a project can use: its `.mcp.json` and the app-level list (a project's server wins over an
// app-level one of the same name), each with its per-project switch, where it runs, and whether its `${NAME}`
// placeholders have values in the vault.
import type { AppMcpServers } from './appServers'
import { readProjectServers, serverLocation, type ConfigProblem, type DeclaredServer } from './config'
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
}

export interface ServerList {
  servers: ListedServer[]
  problems: ConfigProblem[]
}

/** The project's and the app's servers, switches applied; values stay unresolved (for display). */
export async function listServers(projectDir: string, app: AppMcpServers | null): Promise<ServerList> {
  const project = await readProjectServers(projectDir)
  const disabled = new Set(await disabledServers(projectDir))
  const names = new Set(project.servers.map((s) => s.name))
  const all = [...project.servers, ...(app?.list() ?? []).filter((s) => !names.has(s.name))]
  const lookup = (name: string) => app?.secret(name) ?? null
  const servers = all.map((s) => {
    const resolved = resolvePlaceholders(s.config, lookup)
    return {
      ...s,
      location: serverLocation(s.config),
      enabled: !disabled.has(s.name),
      missingSecrets: 'missing' in resolved ? resolved.missing : [],
      secrets: placeholderNames(s.config),
    }
  })
  return { servers, problems: project.problems }
}

/**
 * The servers to start for a task: the enabled ones with their placeholders filled from the vault, and a reason for
 * each enabled one that cannot start (a mistake in `.mcp.json`, a secret not stored).
 */
export async function serversToStart(
  projectDir: string,
  app: AppMcpServers | null,
): Promise<{ servers: DeclaredServer[]; refused: { server: string; message: string }[] }> {
  const { servers, problems } = await listServers(projectDir, app)
  const refused = problems.map((p) => ({ server: p.server ?? '.mcp.json', message: p.message }))
  const ready: DeclaredServer[] = []
  const lookup = (name: string) => app?.secret(name) ?? null
  for (const s of servers) {
    if (!s.enabled) continue
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
