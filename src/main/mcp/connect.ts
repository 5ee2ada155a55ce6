// Connects to one MCP server: a stdio server started inside the sandbox under run_command's rules (the project
// writable, `.ralph/` and `.git` read-only, the app data folder and credential stores invisible, an allowlisted
// environment), a remote one over HTTP directly. Set-up is bounded in time; a server that cannot be reached is a
// `failed` connection with the reason, never a throw.
import {
  createMCPClient,
  type CallToolResult,
  type ListToolsResult,
  type MCPClient,
  type MCPTransport,
} from '@ai-sdk/mcp'
import { createPidsCgroup, prepareSandbox } from '../sandbox'
import { commandEnv } from '../tools'
import { noteFailure, type Logger } from '../workspace'
import type { DeclaredServer, RemoteServerConfig, StdioServerConfig } from './config'
import { appServerHome, pathOutside } from './appServerPlace'
import { launchLine } from './launchLine'
import { SandboxedStdioTransport } from './stdioTransport'

/** How long a server gets to start, answer `initialize` and list its tools. */
export const MCP_SETUP_TIMEOUT_MS = 20_000

export interface ConnectOptions {
  projectDir: string
  /** The caller's environment: the sandbox builds the server's from its allowlist (as for run_command). */
  env: NodeJS.ProcessEnv
  logger: Logger
  timeoutMs?: number
  signal?: AbortSignal
}

/** What the server says about one of its tools (the MCP `tools/list` entry we keep). */
export interface ServerTool {
  name: string
  description: string
  inputSchema: Record<string, unknown>
  readOnlyHint: boolean
  /** Calls it through the client (`tools/call`); a server's own error is a result with `isError`. */
  run(args: Record<string, unknown>, signal: AbortSignal): Promise<CallToolResult>
}

export type Connection =
  | {
      ok: true
      server: DeclaredServer
      client: MCPClient
      tools: ServerTool[]
      /** Why the server is gone, once it is: '' while it runs (stdio only). */
      deathNote(): string
      close(): Promise<void>
    }
  | { ok: false; server: DeclaredServer; error: string }

async function stdioTransport(
  server: DeclaredServer,
  config: StdioServerConfig,
  opts: ConnectOptions,
): Promise<{ transport: SandboxedStdioTransport } | { error: string }> {
  // An app-level server runs in a folder of its own, never in the project (appServerPlace.ts).
  const ownHome = server.origin === 'app' ? await appServerHome(server.name, opts.projectDir) : null
  const sandbox = await prepareSandbox({
    projectDir: opts.projectDir,
    env: opts.env,
    writableRalphFiles: [],
    logger: opts.logger,
    ...(ownHome !== null ? { home: ownHome } : {}),
  })
  if (!sandbox.ok) return { error: sandbox.message.replace(/^Not run: /, '') }
  // The server's env is set by the shell inside the sandbox, never on the launch (launchLine.ts).
  const { line, carriers } = launchLine(config, ownHome)
  const base = commandEnv(opts.env, { home: sandbox.home, passEnv: sandbox.passEnv })
  if (ownHome !== null) base.PATH = pathOutside(base.PATH, [opts.projectDir, sandbox.projectDir])
  let launch = sandbox.wrap(line, { ...base, ...carriers })
  // As for run_command: under bubblewrap the server's processes are capped by a pids cgroup where one can be made
  // (a first shell joins it and becomes bwrap). The file-size and process rlimits apply everywhere.
  const cgroup =
    sandbox.kind === 'bubblewrap' ? await createPidsCgroup(sandbox.limits.processes + 3, opts.logger) : null
  if (cgroup !== null) {
    launch = {
      ...launch,
      file: '/bin/sh',
      args: ['-c', 'echo $$ > "$0" && exec "$@"', cgroup.procsFile, launch.file, ...launch.args],
    }
  }
  const transport = new SandboxedStdioTransport(
    { ...launch, cwd: ownHome ?? sandbox.projectDir },
    opts.logger,
    () => cgroup?.remove(),
  )
  return { transport }
}

function remoteTransport(config: RemoteServerConfig) {
  return {
    type: config.type,
    url: config.url,
    ...(config.headers ? { headers: config.headers } : {}),
  } as const
}

function withDeadline<T>(work: Promise<T>, ms: number, signal: AbortSignal | undefined): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`it did not answer within ${Math.round(ms / 1000)} s`)),
      ms,
    )
    const onAbort = () => reject(new Error('cancelled'))
    signal?.addEventListener('abort', onAbort, { once: true })
    work.then(resolve, reject).finally(() => {
      clearTimeout(timer)
      signal?.removeEventListener('abort', onAbort)
    })
  })
}

async function listAllTools(client: MCPClient): Promise<ServerTool[]> {
  const listed: ListToolsResult['tools'] = []
  let cursor: string | undefined
  do {
    const page = await client.listTools(cursor ? { params: { cursor } } : {})
    listed.push(...page.tools)
    cursor = page.nextCursor
  } while (cursor)
  const sdkTools = client.toolsFromDefinitions({ tools: listed })
  return listed.map((t) => ({
    name: t.name,
    description: t.description ?? t.title ?? '',
    inputSchema: t.inputSchema as Record<string, unknown>,
    readOnlyHint: t.annotations?.readOnlyHint === true,
    run: (args, signal) =>
      sdkTools[t.name]!.execute(args, {
        abortSignal: signal,
        toolCallId: t.name,
        messages: [],
      }) as Promise<CallToolResult>,
  }))
}

/** Starts (or reaches) one server and lists its tools. */
export async function connectServer(server: DeclaredServer, opts: ConnectOptions): Promise<Connection> {
  const timeoutMs = opts.timeoutMs ?? MCP_SETUP_TIMEOUT_MS
  let stdio: SandboxedStdioTransport | null = null
  let transport: MCPTransport | ReturnType<typeof remoteTransport>
  if ('url' in server.config) transport = remoteTransport(server.config)
  else {
    const made = await stdioTransport(server, server.config, opts).catch((err: unknown) => ({
      error: `it could not be prepared: ${(err as Error).message}`,
    }))
    if ('error' in made) return { ok: false, server, error: made.error }
    stdio = made.transport
    transport = stdio
  }
  let client: MCPClient | null = null
  const setup = (async () => {
    client = await createMCPClient({
      transport,
      clientName: 'ralph-studio',
      onUncaughtError: (err) =>
        noteFailure(opts.logger, `mcp: server "${server.name}" reported an error`, err),
    })
    return listAllTools(client)
  })()
  try {
    const tools = await withDeadline(setup, timeoutMs, opts.signal)
    const connected = client as unknown as MCPClient
    return {
      ok: true,
      server,
      client: connected,
      tools,
      deathNote: () => stdio?.exitText() ?? '',
      close: () => closeQuietly(connected, stdio, server.name, opts.logger),
    }
  } catch (err) {
    const why = stdio?.exit ? `it ended during set-up with ${stdio.exitDetail()}` : (err as Error).message
    await closeQuietly(client, stdio, server.name, opts.logger)
    // A remote server that answers after the deadline: its client is closed as soon as it exists.
    void setup
      .catch((late: unknown) =>
        noteFailure(opts.logger, `mcp: server "${server.name}" failed after its deadline`, late),
      )
      .then(() => closeQuietly(client, null, server.name, opts.logger))
    return { ok: false, server, error: why }
  }
}

async function closeQuietly(
  client: MCPClient | null,
  stdio: SandboxedStdioTransport | null,
  name: string,
  log: Logger,
): Promise<void> {
  try {
    await client?.close()
  } catch (err) {
    noteFailure(log, `mcp: server "${name}" did not close cleanly`, err)
  }
  try {
    await stdio?.close()
  } catch (err) {
    noteFailure(log, `mcp: server "${name}" could not be stopped`, err)
  }
}
