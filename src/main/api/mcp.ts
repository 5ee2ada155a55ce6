// MCP servers for Settings (DESIGN.md §9): the project's and the app's servers with where each runs, the per-project
// switches, a start test, and the app-level list whose env/header values and placeholder secrets live in the vault.
import type { McpList, McpServerInfo, mcpCalls } from '../../shared/api/mcp'
import { AppError } from '../../shared/errors'
import {
  approveServer,
  listServers,
  McpSession,
  revokeServer,
  serverFingerprint,
  mcpToolName,
  resolvePlaceholders,
  setServerEnabled,
  type AppMcpServers,
  waitingMessage,
  type ListedServer,
} from '../mcp'
import { McpNotesRepo, type Db } from '../store'
import { runInProject } from '../tasks/taskDetail'
import type { Handlers } from './types'

function info(s: ListedServer): McpList['servers'][number] {
  const c = s.config
  const remote = 'url' in c
  return {
    name: s.name,
    origin: s.origin,
    location: s.location,
    sandboxed: s.location === 'stdio',
    target: remote ? c.url : [c.command, ...(c.args ?? [])].join(' '),
    keys: Object.keys((remote ? c.headers : c.env) ?? {}),
    enabled: s.enabled,
    secrets: s.secrets,
    missingSecrets: s.missingSecrets,
    approval: s.approval,
    fingerprint: serverFingerprint(c),
    detail: serverDetail(s),
  }
}

/** Exactly what would run or be contacted; an app-level server's values are in the vault and stay there. */
function serverDetail(s: ListedServer): McpServerInfo['detail'] {
  const c = s.config
  if ('url' in c) return { kind: 'remote', url: c.url, headers: Object.keys(c.headers ?? {}) }
  const env = Object.entries(c.env ?? {}).map(([name, value]) => ({
    name,
    value: s.origin === 'project' ? value : null,
  }))
  return { kind: 'stdio', command: c.command, args: c.args ?? [], env }
}

async function list(dir: string, app: AppMcpServers): Promise<McpList> {
  const { servers, problems } = await listServers(dir, app)
  return { servers: servers.map(info), problems }
}

/** The calls, given the app-level list (the host's database and vault) and the database of the runs. */
export function mcpHandlers(app: () => AppMcpServers, db: Db): Handlers<typeof mcpCalls> {
  return {
    'mcp.list': async ({ projectId }, ctx) => list(ctx.resolveProject(projectId).path, app()),
    'mcp.taskNotes': async ({ projectId, runId }, ctx) => {
      if (!runInProject(db, runId, ctx.resolveProject(projectId).path))
        throw new AppError('not-found', `No run ${runId} in this project.`)
      return new McpNotesRepo(db).forRun(runId)
    },
    'mcp.setEnabled': async ({ projectId, server, enabled }, ctx) => {
      const dir = ctx.resolveProject(projectId).path
      const known = (await listServers(dir, app())).servers.some((s) => s.name === server)
      // Only a server that is there can be turned off (a typo would otherwise be kept silently).
      if (!enabled && !known) throw new AppError('invalid-input', `There is no MCP server "${server}" here.`)
      await setServerEnabled(dir, server, enabled)
      return list(dir, app())
    },
    'mcp.approve': async ({ projectId, server, fingerprint }, ctx) => {
      const dir = ctx.resolveProject(projectId).path
      await approveServer(dir, app(), server, fingerprint)
      return list(dir, app())
    },
    'mcp.revoke': async ({ projectId, server }, ctx) => {
      const dir = ctx.resolveProject(projectId).path
      await revokeServer(dir, app(), server)
      return list(dir, app())
    },
    'mcp.test': async ({ projectId, server }, ctx) => {
      const dir = ctx.resolveProject(projectId).path
      const servers = app()
      const s = (await listServers(dir, servers)).servers.find((x) => x.name === server)
      if (!s) throw new AppError('not-found', `There is no MCP server "${server}" here.`)
      if (s.approval === 'waiting' || s.approval === 'changed')
        return { ok: false, message: `Not started: ${waitingMessage(s.name, s.approval)}.`, tools: [] }
      const resolved = resolvePlaceholders(s.config, (n) => servers.secret(n))
      if ('missing' in resolved) {
        return { ok: false, message: `It needs the secret(s) ${resolved.missing.join(', ')}.`, tools: [] }
      }
      const session = await McpSession.start([{ ...s, config: resolved.config }], {
        projectDir: dir,
        env: process.env,
        logger: ctx.logger,
      })
      try {
        const start = session.starts[0]!
        const tools = session.serverTools(server).map((t) => ({
          name: t.name,
          modelName: mcpToolName(server, t.name),
          readOnly: t.readOnlyHint,
          description: t.description,
        }))
        return { ok: start.ok, message: start.message, tools }
      } finally {
        await session.close()
      }
    },
    'mcp.saveServer': async ({ projectId, name, server }, ctx) => {
      app().set(name, server)
      return list(ctx.resolveProject(projectId).path, app())
    },
    'mcp.removeServer': async ({ projectId, name }, ctx) => {
      if (!app().remove(name)) throw new AppError('not-found', `There is no app-level MCP server "${name}".`)
      return list(ctx.resolveProject(projectId).path, app())
    },
    'mcp.setSecret': async ({ name, value }) => {
      app().setSecret(name, value)
      return { ok: true as const }
    },
  }
}
