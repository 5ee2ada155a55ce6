// The MCP servers of one task: started together when the task's loop begins, their tools offered to the model as
// `mcp__<server>__<tool>` next to Ralph's own, every call answered as a tool result (an error result when the
// server failed, died or refused), and all of them stopped when the task ends.
import { jsonSchema, type Schema } from 'ai'
import { mapLimited } from '../../shared/mapLimited'
import type { McpServerNote } from '../store'
import { deadline, noteFailure, type Logger } from '../workspace'
import type { AppMcpServers } from './appServers'
import type { DeclaredServer } from './config'
import { serversToStart } from './sources'
import { connectServer, type ConnectOptions, type Connection, type ServerTool } from './connect'
import { mcpToolName } from './names'
import { capTools } from './toolCaps'
import { resultImage, resultText } from './result'
import { fitToolImage, mcpImageName, type ImageAttachment } from '../attachments'

/** A server tool as the model is offered it. */
export interface McpModelTool {
  description: string
  inputSchema: Schema<unknown>
}

interface Entry {
  modelName: string
  connection: Extract<Connection, { ok: true }>
  tool: ServerTool
}

/** How one server's start went, for the card and `ralph mcp`. */
export interface ServerStart {
  server: string
  ok: boolean
  tools: number
  /** Why it did not start (or, `lost`, why it stopped); empty when it did. */
  message: string
  /** It started, then stopped during the task (its calls fail from then on). */
  lost?: boolean
}

/** Where a task's session says how its servers are: the loop's event, and the notes its card keeps. */
export interface McpReport {
  emit(servers: ServerStart[]): void
  record(note: McpServerNote): void
}

export interface McpCallResult {
  ok: boolean
  output: string
  /** The answer's first image, fitted to every provider's limits: the loop shows it as read_file's are. */
  image?: ImageAttachment
}

/** Per call, at most this long unless the caller says otherwise (run_command's default). */
const CALL_TIMEOUT_MS = 120_000

export class McpSession {
  private readonly entries = new Map<string, Entry>()
  private report: McpReport | null = null
  private readonly lost = new Set<string>()

  /** Each started server's tools that fit in the prompt (toolCaps.ts), and what was left out of each. */
  private readonly offered = new Map<string, ServerTool[]>()
  private readonly capNotes = new Map<string, string>()

  private constructor(
    private readonly connections: Connection[],
    private readonly logger: Logger,
    /** Servers that were not started (a mistake in their declaration, no approval, a secret not stored). */
    private readonly refused: { server: string; message: string }[] = [],
  ) {
    const started = connections.filter((c): c is Extract<Connection, { ok: true }> => c.ok)
    const capped = capTools(started)
    started.forEach((c, i) => {
      const { kept, note } = capped[i]!
      this.offered.set(c.server.name, kept)
      if (note) this.capNotes.set(c.server.name, note)
      for (const tool of kept) {
        let modelName = mcpToolName(c.server.name, tool.name)
        for (let n = 2; this.entries.has(modelName); n++)
          modelName = `${mcpToolName(c.server.name, tool.name).slice(0, 60)}_${n}`
        this.entries.set(modelName, { modelName, connection: c, tool })
      }
    })
  }

  /** Starts every server at once; the ones that fail are reported in `starts`, never thrown. */
  static async start(
    servers: readonly DeclaredServer[],
    opts: ConnectOptions,
    refused: { server: string; message: string }[] = [],
  ): Promise<McpSession> {
    const connections = await mapLimited([...servers], 4, (s) => connectServer(s, opts))
    return new McpSession(connections, opts.logger, refused)
  }

  /** The project's enabled servers (`.mcp.json` and the app-level list), started for one task. */
  static async open(
    opts: ConnectOptions & { app: AppMcpServers | null; approvalsOf?: string },
  ): Promise<McpSession> {
    let found: Awaited<ReturnType<typeof serversToStart>>
    try {
      found = await serversToStart(opts.projectDir, opts.app, opts.approvalsOf)
    } catch (err) {
      // An unreadable .ralph/config.json (its switches): no server starts, and the card says why.
      noteFailure(opts.logger, 'mcp: the servers could not be listed', err)
      return new McpSession([], opts.logger, [{ server: 'MCP', message: (err as Error).message }])
    }
    return McpSession.start(found.servers, opts, found.refused)
  }

  /** An empty session: no servers. */
  static none(logger: Logger): McpSession {
    return new McpSession([], logger)
  }

  get starts(): ServerStart[] {
    return [
      ...this.refused.map((r) => ({ server: r.server, ok: false, tools: 0, message: r.message })),
      ...this.connections.map((c) => ({
        server: c.server.name,
        ok: c.ok,
        tools: c.ok ? (this.offered.get(c.server.name)?.length ?? 0) : 0,
        // A server that started: what was left out of its tools, if anything.
        message: c.ok ? (this.capNotes.get(c.server.name) ?? '') : c.error,
      })),
    ]
  }

  /**
   * Says how the servers started (an event, and a note for each that did not, kept for the card) and, from then on,
   * a server that stops during the task. Nothing when no server is declared.
   */
  follow(report: McpReport): void {
    this.report = report
    if (this.isEmpty) return
    const starts = this.starts
    for (const s of starts) {
      if (!s.ok) this.record({ server: s.server, kind: 'start', message: s.message })
      else if (s.message) this.record({ server: s.server, kind: 'capped', message: s.message })
    }
    report.emit(starts)
  }

  private record(note: McpServerNote): void {
    try {
      this.report?.record(note)
    } catch (err) {
      // The card loses the line; the task goes on (the model read the error as its tool result).
      noteFailure(this.logger, `mcp: the note on server "${note.server}" could not be kept`, err)
    }
  }

  /** A server found gone (a call failed on it): said once. */
  private noteLost(server: string, died: string): void {
    if (!this.report || this.lost.has(server)) return
    this.lost.add(server)
    const message = died.replace(/^ \((.*)\)$/s, '$1')
    this.record({ server, kind: 'lost', message })
    this.report.emit([{ server, ok: false, tools: 0, message, lost: true }])
  }

  /** Whether there is anything to say: no server declared, nothing to report on the card. */
  get isEmpty(): boolean {
    return this.connections.length === 0 && this.refused.length === 0
  }

  get toolNames(): string[] {
    return [...this.entries.keys()]
  }

  /** The tools of one server the model is offered (empty when it did not start): those that fit the caps. */
  serverTools(server: string): ServerTool[] {
    return this.offered.get(server) ?? []
  }

  has(name: string): boolean {
    return this.entries.has(name)
  }

  /** Whether the server declares the tool read-only (`readOnlyHint`): only those are offered in Ask mode. */
  isReadOnly(name: string): boolean {
    return this.entries.get(name)?.tool.readOnlyHint === true
  }

  /** The tools for the model: all of them, or (Ask mode) only the read-only ones. */
  modelTools(readOnlyOnly = false): Record<string, McpModelTool> {
    const out: Record<string, McpModelTool> = {}
    for (const e of this.entries.values()) {
      if (readOnlyOnly && !e.tool.readOnlyHint) continue
      out[e.modelName] = {
        description:
          e.tool.description || `The tool "${e.tool.name}" of the MCP server "${e.connection.server.name}".`,
        inputSchema: jsonSchema({
          ...e.tool.inputSchema,
          type: 'object',
          properties: (e.tool.inputSchema.properties as Record<string, never> | undefined) ?? {},
        }),
      }
    }
    return out
  }

  /** Calls one tool; every failure is an error result the model reads. */
  async call(
    name: string,
    args: unknown,
    opts: { signal: AbortSignal; timeoutMs?: number; readOnlyOnly?: boolean },
  ): Promise<McpCallResult> {
    const entry = this.entries.get(name)
    if (!entry || (opts.readOnlyOnly && !entry.tool.readOnlyHint)) {
      const why = entry
        ? ' that only reads (it does not declare readOnlyHint), so it is not available here'
        : ''
      return { ok: false, output: `There is no MCP tool "${name}"${why}.` }
    }
    if (opts.signal.aborted) return { ok: false, output: 'Not run: the task was cancelled.' }
    const server = entry.connection.server.name
    const input = args === null || args === undefined ? {} : args
    if (typeof input !== 'object' || Array.isArray(input)) {
      return { ok: false, output: `Invalid arguments for ${name}: an object of named arguments is expected.` }
    }
    const timeoutMs = opts.timeoutMs ?? CALL_TIMEOUT_MS
    const limit = deadline(timeoutMs, opts.signal)
    const signal = limit.signal
    try {
      const result = await entry.tool.run(input as Record<string, unknown>, signal)
      const text = resultText(result)
      if (result.isError)
        return { ok: false, output: `The MCP server "${server}" answered with an error:\n${text}` }
      return { ok: true, ...(await this.withImage(name, text, result)) }
    } catch (err) {
      if (opts.signal.aborted) return { ok: false, output: `Stopped: the task was cancelled.` }
      if (signal.aborted)
        return {
          ok: false,
          output: `The MCP server "${server}" did not answer within ${Math.round(timeoutMs / 1000)} s.`,
        }
      const died = entry.connection.deathNote()
      noteFailure(this.logger, `mcp: a call to ${name} failed`, err)
      if (died) this.noteLost(server, died)
      return {
        ok: false,
        output: died
          ? `The MCP server "${server}" is no longer running${died}. Its tools cannot be used in this task.`
          : `The call to the MCP server "${server}" failed: ${(err as Error).message}`,
      }
    } finally {
      limit.done()
    }
  }

  /** The answer's text, and its image fitted to the limits (a damaged one: a note instead). */
  private async withImage(
    name: string,
    text: string,
    result: Parameters<typeof resultImage>[0],
  ): Promise<{ output: string; image?: ImageAttachment }> {
    const found = resultImage(result)
    if (!found) return { output: text }
    try {
      return { output: text, image: await fitToolImage({ name: mcpImageName(name, 1), ...found }) }
    } catch (err) {
      noteFailure(this.logger, `mcp: the image ${name} returned could not be decoded`, err)
      return { output: `${text}\n[its image could not be decoded: the data is damaged; it is not shown]` }
    }
  }

  /** Stops every server. */
  async close(): Promise<void> {
    await Promise.all(this.connections.map((c) => (c.ok ? c.close() : Promise.resolve())))
  }
}
