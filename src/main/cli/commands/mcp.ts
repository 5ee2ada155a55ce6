// `ralph mcp`: the MCP servers a project can use (DESIGN.md §9) — where each runs, whether it is on, its tools —
// a start test of one, the per-project switches, and the app-level list with its vault-held values.
import { AppError } from '../../../shared/errors'
import {
  AppMcpServers,
  approveServer,
  listServers,
  McpSession,
  mcpToolName,
  resolvePlaceholders,
  revokeServer,
  serverFingerprint,
  setServerEnabled,
  waitingMessage,
  type ListedServer,
  type ServerTool,
} from '../../mcp'
import { FileVault } from '../../secrets/fileVault'
import { checkProjectFolder } from '../../workspace/projectFolder'
import { expectAction, expectPositionals, stringFlag, usageError } from '../args'
import { openCliServices } from '../openCore'
import { writeJson } from '../output'
import { ExitCode, type CliCommand, type CliContext } from '../types'

const usage = `Usage: ralph mcp [list|test NAME|enable NAME|disable NAME|approve NAME|revoke NAME] [--project DIR] [--json]
       ralph mcp add NAME --command CMD [--arg A]… [--env KEY=VALUE]…     (app-level, every project)
       ralph mcp add NAME --url URL [--type http|sse] [--header "Name: value"]…
       ralph mcp remove NAME
       ralph mcp secret NAME [--value V]      (stores a \${NAME} placeholder's value; stdin without --value)

  list           the project's MCP servers (.mcp.json at its root) and the app-level ones: where each runs
                 (stdio servers in the sandbox, like the model's commands; http/sse servers remote), whether it is
                 on in this project, and the tools of each one that is on (it is started to ask)
  test NAME      start one server, list its tools, stop it: exit 0 when it starts, 1 when it does not
  enable NAME    use this server in this project again
  disable NAME   do not start it for this project's tasks (.ralph/config.json "mcp": { "disabled": [...] })
  approve NAME   let a server of the project's .mcp.json start, exactly as it is now: a server from .mcp.json (a
                 cloned repository's, or one the model wrote) never starts and never sees a vault secret until
                 approved, and waits again after any change to its entry; list shows what it would run first
  revoke NAME    withdraw that approval

Its tools reach the model as mcp__<server>__<tool>; Ask mode gets only those a server marks read-only. The values of
app-level env and headers, and of \${NAME} placeholders in .mcp.json, live in the vault (never in the database);
placeholders never read the app's own environment.`

const options = {
  command: { type: 'string' },
  arg: { type: 'string', multiple: true },
  env: { type: 'string', multiple: true },
  url: { type: 'string' },
  type: { type: 'string' },
  header: { type: 'string', multiple: true },
  value: { type: 'string' },
} as const

interface Services {
  app: AppMcpServers
  close(): void
}

function openApp(ctx: CliContext, command: string): Services {
  const services = openCliServices(ctx.env, `mcp ${command}`)
  const vault = services.host.vault ?? new FileVault(services.appDataDir)
  return { app: new AppMcpServers(services.db, vault), close: services.close }
}

const where = (s: ListedServer) => (s.location === 'stdio' ? 'sandboxed stdio' : `remote ${s.location}`)

function toolJson(server: string, t: ServerTool) {
  return {
    name: t.name,
    modelName: mcpToolName(server, t.name),
    readOnly: t.readOnlyHint,
    description: t.description,
  }
}

/** Starts one server (its placeholders filled) and returns its tools, or why it did not start. */
async function probe(
  ctx: CliContext,
  projectDir: string,
  s: ListedServer,
  app: AppMcpServers,
): Promise<{ ok: boolean; tools: ReturnType<typeof toolJson>[]; message: string }> {
  // A server that waits for approval is never started, and its placeholders are never filled.
  if (waits(s)) return { ok: false, tools: [], message: waitingMessage(s.name, s.approval) }
  const resolved = resolvePlaceholders(s.config, (n) => app.secret(n))
  if ('missing' in resolved) {
    return {
      ok: false,
      tools: [],
      message: `needs the secret(s) ${resolved.missing.join(', ')}, not in the vault`,
    }
  }
  const session = await McpSession.start([{ ...s, config: resolved.config }], {
    projectDir,
    env: ctx.env,
    logger: ctx.logger,
    signal: ctx.signal,
  })
  try {
    const start = session.starts[0]!
    const tools = session.serverTools(s.name).map((t) => toolJson(s.name, t))
    return { ok: start.ok, tools, message: start.message }
  } finally {
    await session.close()
  }
}

const waits = (s: ListedServer): s is ListedServer & { approval: 'waiting' | 'changed' } =>
  s.approval === 'waiting' || s.approval === 'changed'

/** Exactly what a server would run or contact, and the vault secrets it would get. */
function whatItDoes(s: ListedServer): string[] {
  const c = s.config
  const lines =
    'url' in c
      ? [
          `would contact: ${c.url} (${c.type})`,
          ...(c.headers ? [`headers: ${Object.keys(c.headers).join(', ')}`] : []),
        ]
      : [
          `would run: ${[c.command, ...(c.args ?? [])].map(shellWord).join(' ')}  (in the sandbox)`,
          ...Object.entries(c.env ?? {}).map(([k, v]) => `env: ${k}=${v}`),
        ]
  if (s.secrets.length > 0) lines.push(`vault secrets it would get: ${s.secrets.join(', ')}`)
  return lines.map((l) => `    ${l}`)
}

const shellWord = (w: string) => (/^[A-Za-z0-9_@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`)

function serverLines(s: ListedServer, probed: Awaited<ReturnType<typeof probe>> | null): string[] {
  const from = s.origin === 'project' ? '.mcp.json' : 'app-level'
  if (waits(s)) {
    const why =
      s.approval === 'changed' ? 'changed since you approved it: waits for approval' : 'waits for approval'
    return [
      `⏸ ${s.name}  ${where(s)}  ${from}  ${why}${s.enabled ? '' : ' (off in this project)'}`,
      ...whatItDoes(s),
      `    approve: ralph mcp approve ${s.name}  (or Approve in Settings → MCP servers)`,
    ]
  }
  const state = s.enabled ? 'on' : 'off in this project'
  const lines = [`${s.enabled ? '✔' : '✘'} ${s.name}  ${where(s)}  ${from}  ${state}`]
  if (s.missingSecrets.length > 0)
    lines.push(`    needs the secret(s) ${s.missingSecrets.join(', ')} (ralph mcp secret NAME)`)
  if (probed && !probed.ok) lines.push(`    ✗ does not start: ${probed.message}`)
  else if (probed?.message) lines.push(`    ⚠ ${probed.message}`)
  for (const t of probed?.tools ?? []) lines.push(`    ${t.modelName}${t.readOnly ? '  (read-only)' : ''}`)
  return lines
}

async function list(ctx: CliContext): Promise<number> {
  const projectDir = checkProjectFolder(ctx.projectDir)
  const { app, close } = openApp(ctx, 'list')
  try {
    const { servers, problems } = await listServers(projectDir, app)
    const probed = await Promise.all(
      servers.map((s) =>
        s.enabled && !waits(s) && s.missingSecrets.length === 0 ? probe(ctx, projectDir, s, app) : null,
      ),
    )
    if (ctx.json) {
      writeJson(ctx.stdout, {
        ok: true,
        servers: servers.map((s, i) => ({
          name: s.name,
          origin: s.origin,
          location: s.location,
          sandboxed: s.location === 'stdio',
          enabled: s.enabled,
          approval: s.approval,
          ...(waits(s) ? { approve: `ralph mcp approve ${s.name}` } : {}),
          secrets: s.secrets,
          missingSecrets: s.missingSecrets,
          started: probed[i] ?? null,
        })),
        problems,
      })
      return ExitCode.ok
    }
    const lines = servers.flatMap((s, i) => serverLines(s, probed[i] ?? null))
    if (lines.length === 0)
      lines.push('No MCP servers: add them to .mcp.json at the project root, or with ralph mcp add.')
    for (const p of problems) lines.push(`! ${p.message}`)
    ctx.stdout.write(`${lines.join('\n')}\n`)
    return ExitCode.ok
  } finally {
    close()
  }
}

async function test(ctx: CliContext, name: string): Promise<number> {
  const projectDir = checkProjectFolder(ctx.projectDir)
  const { app, close } = openApp(ctx, 'test')
  try {
    const { servers, problems } = await listServers(projectDir, app)
    const s = servers.find((x) => x.name === name)
    if (!s) {
      const problem = problems.find((p) => p.server === name)
      throw new AppError(
        problem ? 'config' : 'not-found',
        problem?.message ??
          `There is no MCP server "${name}" (servers: ${servers.map((x) => x.name).join(', ') || 'none'}).`,
      )
    }
    const r = await probe(ctx, projectDir, s, app)
    if (ctx.json) writeJson(ctx.stdout, { server: name, location: s.location, enabled: s.enabled, ...r })
    else if (r.ok) {
      const off = s.enabled ? '' : ' (it is off in this project: ralph mcp enable to use it)'
      ctx.stdout.write(
        `✔ ${name} started (${where(s)}) with ${r.tools.length} tool(s)${off}\n${r.message ? `  ⚠ ${r.message}\n` : ''}${r.tools.map((t) => `    ${t.modelName}${t.readOnly ? '  (read-only)' : ''}`).join('\n')}\n`,
      )
    } else ctx.stderr.write(`✗ ${name} did not start: ${r.message}\n`)
    return r.ok ? ExitCode.ok : 1
  } finally {
    close()
  }
}

async function toggle(ctx: CliContext, name: string, enabled: boolean): Promise<number> {
  const projectDir = checkProjectFolder(ctx.projectDir, { write: true })
  const { app, close } = openApp(ctx, enabled ? 'enable' : 'disable')
  try {
    const { servers } = await listServers(projectDir, app)
    if (!enabled && !servers.some((s) => s.name === name))
      throw new AppError('invalid-input', `There is no MCP server "${name}". "ralph mcp list" lists them.`)
    const disabled = await setServerEnabled(projectDir, name, enabled)
    if (ctx.json) writeJson(ctx.stdout, { ok: true, server: name, enabled, disabled })
    else ctx.stdout.write(`${name} is ${enabled ? 'on' : 'off'} in this project.\n`)
    return ExitCode.ok
  } finally {
    close()
  }
}

async function approval(ctx: CliContext, name: string, action: 'approve' | 'revoke'): Promise<number> {
  const projectDir = checkProjectFolder(ctx.projectDir)
  const { app, close } = openApp(ctx, action)
  try {
    if (action === 'revoke') {
      await revokeServer(projectDir, app, name)
      if (ctx.json) writeJson(ctx.stdout, { ok: true, server: name, approval: 'waiting' })
      else
        ctx.stdout.write(`${name} waits for approval again in this project; it does not start until then.\n`)
      return ExitCode.ok
    }
    const s = await approveServer(projectDir, app, name)
    if (ctx.json)
      writeJson(ctx.stdout, {
        ok: true,
        server: name,
        approval: 'approved',
        fingerprint: serverFingerprint(s.config),
      })
    else
      ctx.stdout.write(
        `Approved ${name} for this project, exactly as it is now:\n${whatItDoes(s).join('\n')}\n` +
          `A change to its entry in .mcp.json makes it wait for approval again.\n`,
      )
    return ExitCode.ok
  } finally {
    close()
  }
}

const pairs = (items: unknown, sep: string, what: string): Record<string, string> | undefined => {
  if (!Array.isArray(items) || items.length === 0) return undefined
  return Object.fromEntries(
    (items as string[]).map((item) => {
      const at = item.indexOf(sep)
      if (at <= 0) throw usageError('mcp', `${what} "${item}" needs the form NAME${sep}VALUE.`)
      return [item.slice(0, at).trim(), item.slice(at + sep.length).trim()]
    }),
  )
}

function add(ctx: CliContext, name: string): number {
  const command = stringFlag(ctx.values, 'command')
  const url = stringFlag(ctx.values, 'url')
  if ((command === undefined) === (url === undefined))
    throw usageError('mcp', 'Give either --command or --url.')
  const raw = command
    ? {
        command,
        args: (ctx.values.arg as string[] | undefined) ?? [],
        env: pairs(ctx.values.env, '=', '--env'),
      }
    : {
        type: stringFlag(ctx.values, 'type') ?? 'http',
        url,
        headers: pairs(ctx.values.header, ':', '--header'),
      }
  const { app, close } = openApp(ctx, 'add')
  try {
    const saved = app.set(name, JSON.parse(JSON.stringify(raw)))
    if (ctx.json)
      writeJson(ctx.stdout, {
        ok: true,
        server: name,
        location: 'url' in saved.config ? saved.config.type : 'stdio',
      })
    else
      ctx.stdout.write(
        `Added the app-level MCP server ${name}; its env and header values are in the vault.\n`,
      )
    return ExitCode.ok
  } finally {
    close()
  }
}

function remove(ctx: CliContext, name: string): number {
  const { app, close } = openApp(ctx, 'remove')
  try {
    if (!app.remove(name)) throw new AppError('not-found', `There is no app-level MCP server "${name}".`)
    if (ctx.json) writeJson(ctx.stdout, { ok: true, server: name, removed: true })
    else ctx.stdout.write(`Removed the app-level MCP server ${name}.\n`)
    return ExitCode.ok
  } finally {
    close()
  }
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = []
  for await (const c of process.stdin) chunks.push(c as Buffer)
  return Buffer.concat(chunks).toString('utf8').trim()
}

async function secret(ctx: CliContext, name: string): Promise<number> {
  const value = stringFlag(ctx.values, 'value') ?? (await readStdin())
  if (value === '') throw usageError('mcp', `Give the value of ${name} with --value or on stdin.`)
  const { app, close } = openApp(ctx, 'secret')
  try {
    app.setSecret(name, value)
    if (ctx.json) writeJson(ctx.stdout, { ok: true, secret: name })
    else ctx.stdout.write(`Stored ${name} in the vault for \${${name}} placeholders.\n`)
    return ExitCode.ok
  } finally {
    close()
  }
}

export const mcpCommand: CliCommand = {
  name: 'mcp',
  usage,
  options,
  async run(ctx) {
    const [action = 'list', name] = ctx.positionals
    expectPositionals(
      ctx.positionals,
      0,
      2,
      'mcp [list|test NAME|enable NAME|disable NAME|approve NAME|revoke NAME|add NAME|remove NAME|secret NAME]',
      'mcp',
    )
    expectAction(
      action,
      ['list', 'test', 'enable', 'disable', 'add', 'remove', 'secret', 'approve', 'revoke'],
      'mcp',
    )
    if (action === 'list') {
      if (name !== undefined) throw usageError('mcp', `Unexpected argument "${name}".`)
      return list(ctx)
    }
    if (name === undefined) throw usageError('mcp', `Say which server: ralph mcp ${action} NAME.`)
    if (action === 'test') return test(ctx, name)
    if (action === 'enable' || action === 'disable') return toggle(ctx, name, action === 'enable')
    if (action === 'add') return add(ctx, name)
    if (action === 'remove') return remove(ctx, name)
    if (action === 'approve' || action === 'revoke') return approval(ctx, name, action)
    return secret(ctx, name)
  },
}
