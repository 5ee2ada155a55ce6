// Ralph's tools served over MCP to one engine session (ENGINES.md "Ralph's tools over MCP"). The server runs in
// Ralph's own process, because inside the sandbox `.ralph/` is read-only and the snapshot store is invisible: it
// listens on a Unix socket in the session folder, and the engine's MCP configuration starts a tiny relay there
// (relay.ts) that pipes the engine's stdio to the socket. Every connection is served (an engine may start the
// server more than once); every call is recorded.
import { chmod, rm, writeFile } from 'node:fs/promises'
import { createServer, type Server as NetServer, type Socket } from 'node:net'
import { join } from 'node:path'
import type { Server } from '@modelcontextprotocol/sdk/server/index.js'
import type { ToolContext, ToolResult } from '../../tools'
import { ifMissing, noteFailure, type Logger } from '../../workspace'
import { RELAY_FILE, RELAY_SOURCE, relayCommand, SOCKET_FILE, socketPathProblem } from './relay'
import { callRalphTool, offeredTools } from './tools'

/** One call the server answered. */
export interface RalphToolCall {
  name: string
  args: unknown
  ok: boolean
  output: string
  completed: boolean
}

export interface RalphToolsServer {
  /** The stdio command an engine's MCP config starts (a relay to this server): EngineSessionSpec['ralphTools']. */
  readonly launch: { command: string; args: string[]; env: Record<string, string> }
  /** Every call served so far, in order (the runner may cross-check the engine's stream with it). */
  readonly calls: readonly RalphToolCall[]
  /** True once a call marked the task complete (mark_complete, as executeTool reports `completed`). */
  readonly completed: boolean
  close(): Promise<void>
}

export interface RalphToolsOptions {
  /** A folder visible inside the engine's sandbox (the session home): the socket and relay script go here. */
  dir: string
  /** The task's tool context (project, snapshots, task number …). */
  toolCtx: ToolContext
  logger: Logger
  /** The program that runs the relay; default process.execPath (under Electron with ELECTRON_RUN_AS_NODE=1). */
  nodePath?: string
}

/** The name engines know the server by (`mcp__ralph__<tool>`, Codex's server `ralph`). */
export const RALPH_TOOLS_SERVER_NAME = 'ralph'
const SERVER_VERSION = '1.0.0'

/** One call's MCP result: a tool's failure is a result the engine reads (`isError`), never a protocol error. */
function toCallResult(r: ToolResult) {
  return { content: [{ type: 'text' as const, text: r.output }], isError: !r.ok }
}

/** The MCP SDK, loaded when a session first serves: a CLI command that starts no engine does not pay its load. */
async function loadSdk() {
  const [server, stdio, types] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/index.js'),
    import('@modelcontextprotocol/sdk/server/stdio.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ])
  return {
    Server: server.Server,
    StdioServerTransport: stdio.StdioServerTransport,
    CallToolRequestSchema: types.CallToolRequestSchema,
    ListToolsRequestSchema: types.ListToolsRequestSchema,
  }
}
type Sdk = Awaited<ReturnType<typeof loadSdk>>

interface Served {
  socket: Socket
  server: Server
}

/** Serves MCP on one connection until either side closes it. */
function serveConnection(
  sdk: Sdk,
  socket: Socket,
  opts: RalphToolsOptions,
  record: (c: RalphToolCall) => void,
): Served {
  const { toolCtx, logger } = opts
  const { Server, StdioServerTransport, CallToolRequestSchema, ListToolsRequestSchema } = sdk
  const server = new Server(
    { name: RALPH_TOOLS_SERVER_NAME, version: SERVER_VERSION },
    { capabilities: { tools: {} } },
  )
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: await offeredTools() }))
  server.setRequestHandler(CallToolRequestSchema, async (req) => {
    const { name, arguments: args } = req.params
    let result: ToolResult
    try {
      result = await callRalphTool(name, args, toolCtx)
    } catch (err) {
      // A bug in a tool: the engine is told the call failed (and can go on); the log keeps the details.
      noteFailure(logger, `ralph tools: ${name} failed`, err)
      result = {
        ok: false,
        output: `${name} failed: ${(err as Error).message}`,
        changedFiles: [],
        completed: false,
      }
    }
    record({ name, args, ok: result.ok, output: result.output, completed: result.completed })
    return toCallResult(result)
  })
  server.onerror = (err) => noteFailure(logger, 'ralph tools: an MCP message could not be handled', err)
  socket.on('error', (err) => noteFailure(logger, 'ralph tools: the connection to the engine failed', err))
  // The engine (or its relay) went away: the MCP side closes too.
  socket.on('close', () => {
    server
      .close()
      .catch((err: unknown) => noteFailure(logger, 'ralph tools: closing a connection failed', err))
  })
  server
    .connect(new StdioServerTransport(socket, socket))
    .catch((err: unknown) => noteFailure(logger, 'ralph tools: a connection could not be served', err))
  return { socket, server }
}

function listen(net: NetServer, path: string): Promise<void> {
  return new Promise((resolve, reject) => {
    net.once('error', reject)
    net.listen(path, () => {
      net.off('error', reject)
      resolve()
    })
  })
}

/**
 * Starts serving Ralph's tools for one engine session: writes the relay into `dir` and listens on a socket there.
 * Throws when the socket cannot be made (a path longer than the platform allows, a folder that cannot be written).
 */
export async function startRalphToolsServer(opts: RalphToolsOptions): Promise<RalphToolsServer> {
  const { dir, logger } = opts
  const socketPath = join(dir, SOCKET_FILE)
  const relayPath = join(dir, RELAY_FILE)
  const problem = socketPathProblem(socketPath)
  if (problem !== null) throw new Error(problem)
  const [sdk] = await Promise.all([loadSdk(), offeredTools()])
  await writeFile(relayPath, RELAY_SOURCE, { mode: 0o644 })
  // A socket left by a session that crashed would make listen fail with EADDRINUSE.
  await rm(socketPath, { force: true })

  const calls: RalphToolCall[] = []
  const served = new Set<Served>()
  const net = createServer((socket) => {
    const s = serveConnection(sdk, socket, opts, (c) => calls.push(c))
    served.add(s)
    socket.on('close', () => served.delete(s))
  })
  net.on('error', (err) => noteFailure(logger, 'ralph tools: the socket server failed', err))
  try {
    await listen(net, socketPath)
    // Only this user (the engine runs as the same user) may connect.
    await chmod(socketPath, 0o600)
  } catch (err) {
    net.close()
    await rm(relayPath, { force: true })
    throw new Error(`Ralph's tools could not be served at ${socketPath}: ${(err as Error).message}`, {
      cause: err,
    })
  }

  let closing: Promise<void> | null = null
  const close = async (): Promise<void> => {
    for (const s of served) {
      await s.server
        .close()
        .catch((err: unknown) => noteFailure(logger, 'ralph tools: closing a connection failed', err))
      s.socket.destroy()
    }
    served.clear()
    await new Promise<void>((resolve) =>
      net.close((err) => {
        if (err) noteFailure(logger, 'ralph tools: the socket server did not close cleanly', err)
        resolve()
      }),
    )
    for (const file of [socketPath, relayPath]) {
      await rm(file)
        .catch(ifMissing(undefined))
        .catch((err: unknown) => noteFailure(logger, `ralph tools: ${file} could not be removed`, err))
    }
  }

  return {
    launch: relayCommand({ relay: relayPath, socket: socketPath, nodePath: opts.nodePath }),
    calls,
    get completed() {
      return calls.some((c) => c.completed)
    },
    close: () => (closing ??= close()),
  }
}
