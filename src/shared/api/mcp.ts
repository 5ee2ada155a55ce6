import { z } from 'zod'
import { projectId, projectOnly } from './common'
import { defineCalls } from './define'

/** One MCP server a project can use (DESIGN.md §9), as Settings lists it: never an env or header value. */
export const mcpServerSchema = z.object({
  name: z.string(),
  /** Where it is declared: the project's `.mcp.json`, or the app-level list in Settings. */
  origin: z.enum(['project', 'app']),
  /** 'stdio': started on this machine inside the sandbox; 'http' / 'sse': a remote server. */
  location: z.enum(['stdio', 'http', 'sse']),
  sandboxed: z.boolean(),
  /** The program line of a stdio server, or the address of a remote one. */
  target: z.string(),
  /** Names of its env variables (stdio) or headers (remote); their values stay in the vault or the file. */
  keys: z.array(z.string()),
  /** Off when the user switched it off for this project. */
  enabled: z.boolean(),
  /** `${NAME}` placeholders it reads from the vault, and those the vault has no value for. */
  secrets: z.array(z.string()),
  missingSecrets: z.array(z.string()),
  /**
   * 'user': an app-level server (added by the user); 'approved': a project server the user approved as it is now;
   * 'waiting': never approved; 'changed': its entry changed since it was approved. The last two never start.
   */
  approval: z.enum(['user', 'approved', 'waiting', 'changed']),
  /** The fingerprint of its exact configuration: `mcp.approve` approves that one, not whatever the file says later. */
  fingerprint: z.string(),
  /** Exactly what would run or be contacted. A project server's env values are shown; an app-level one's stay in the vault (null). */
  detail: z.discriminatedUnion('kind', [
    z.object({
      kind: z.literal('stdio'),
      command: z.string(),
      args: z.array(z.string()),
      env: z.array(z.object({ name: z.string(), value: z.string().nullable() })),
    }),
    z.object({ kind: z.literal('remote'), url: z.string(), headers: z.array(z.string()) }),
  ]),
})
export type McpServerInfo = z.infer<typeof mcpServerSchema>

export const mcpListSchema = z.object({
  servers: z.array(mcpServerSchema),
  /** Mistakes in `.mcp.json`, each naming its server (null: the file as a whole). */
  problems: z.array(z.object({ server: z.string().nullable(), message: z.string() })),
})
export type McpList = z.infer<typeof mcpListSchema>

export const mcpToolSchema = z.object({
  name: z.string(),
  /** What the model calls it: mcp__<server>__<tool>. */
  modelName: z.string(),
  /** The server marks it read-only (readOnlyHint): Ask mode may use it. */
  readOnly: z.boolean(),
  description: z.string(),
})

/** A line a task card shows about one of its MCP servers: it did not start, or it stopped during the task. */
export const mcpTaskNoteSchema = z.object({
  server: z.string(),
  /** 'capped': it started, but some of its tools were left out of the prompt (too many, or too large). */
  kind: z.enum(['start', 'lost', 'capped']),
  message: z.string(),
})
export type McpTaskNote = z.infer<typeof mcpTaskNoteSchema>

const serverName = z.string().trim().min(1).max(100)
const stringMap = z.record(z.string(), z.string())

export const mcpCalls = defineCalls({
  'mcp.list': { input: projectOnly, output: mcpListSchema },
  /** A run's MCP server lines for its task card (kept, so they show after a reload). */
  'mcp.taskNotes': {
    input: z.object({ projectId, runId: z.number().int().positive() }).strict(),
    output: z.array(mcpTaskNoteSchema),
  },
  /** The user's per-project switch (`.ralph/config.json` "mcp", which the model cannot change). */
  'mcp.setEnabled': {
    mutates: true,
    input: z.object({ projectId, server: serverName, enabled: z.boolean() }).strict(),
    output: mcpListSchema,
  },
  /**
   * Approves one of the project's `.mcp.json` servers as shown (DESIGN.md §9): `fingerprint` is the one `mcp.list`
   * gave; when the entry changed since, nothing is approved and the call fails (invalid-input) saying so.
   */
  'mcp.approve': {
    mutates: true,
    input: z
      .object({ projectId, server: serverName, fingerprint: z.string().regex(/^[0-9a-f]{64}$/) })
      .strict(),
    output: mcpListSchema,
  },
  /** Withdraws the approval of a project's server: it waits for approval again. */
  'mcp.revoke': {
    mutates: true,
    input: z.object({ projectId, server: serverName }).strict(),
    output: mcpListSchema,
  },
  /** Starts one server (in the sandbox when stdio), lists its tools and stops it. */
  'mcp.test': {
    mutates: true,
    input: z.object({ projectId, server: serverName }).strict(),
    output: z.object({ ok: z.boolean(), message: z.string(), tools: z.array(mcpToolSchema) }),
  },
  /** Adds or replaces an app-level server; its env and header values go to the vault. */
  'mcp.saveServer': {
    mutates: true,
    input: z
      .object({
        projectId,
        name: serverName,
        server: z.union([
          z
            .object({
              command: z.string().min(1),
              args: z.array(z.string()).optional(),
              env: stringMap.optional(),
            })
            .strict(),
          z
            .object({ type: z.enum(['http', 'sse']), url: z.string().min(1), headers: stringMap.optional() })
            .strict(),
        ]),
      })
      .strict(),
    output: mcpListSchema,
  },
  'mcp.removeServer': {
    mutates: true,
    input: z.object({ projectId, name: serverName }).strict(),
    output: mcpListSchema,
  },
  /** Stores the value of a `${NAME}` placeholder in the vault (never in the database). */
  'mcp.setSecret': {
    mutates: true,
    input: z
      .object({
        name: z
          .string()
          .regex(/^[A-Za-z_][A-Za-z0-9_.-]*$/)
          .max(100),
        value: z.string().min(1).max(10_000),
      })
      .strict(),
    output: z.object({ ok: z.literal(true) }),
  },
})
