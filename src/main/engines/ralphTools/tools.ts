// Which of Ralph's tools an engine session is offered over MCP, as the engine sees them, and how one call runs.
// The descriptions and schemas are the built-in loop's own (tools/registry.ts, converted to JSON schema the way the
// AI SDK converts them for the model); `snapshot` is narrowed to the actions that only read. Calls run through
// executeTool with the task's context, so their results are exactly the built-in loop's.
import { asSchema } from 'ai'
import { executeTool, modelTools, type ToolContext, type ToolResult } from '../../tools'

/** Ralph's tools an engine lacks: what the `ralph` MCP server offers. */
export const RALPH_TOOL_NAMES = ['snapshot', 'plan', 'queue', 'mark_complete'] as const
export type RalphToolName = (typeof RALPH_TOOL_NAMES)[number]

/** The snapshot actions an engine may use: saving and rolling back are the harness's and the user's. */
export const ENGINE_SNAPSHOT_ACTIONS = ['list', 'diff', 'status'] as const
const SNAPSHOT_ACTIONS_TEXT = 'list, diff and status'

const SNAPSHOT_DESCRIPTION =
  'Project snapshots (checkpoints Ralph takes at every task boundary): list them, see which files changed since ' +
  'one, or see the current status. Saving and rolling back are done by Ralph and the user, not from here.'

/** A tool as `tools/list` answers it. */
export interface OfferedTool {
  name: RalphToolName
  description: string
  inputSchema: { type: 'object'; [key: string]: unknown }
  /** MCP's hints: snapshot (as narrowed here) and plan only read; queue and mark_complete write `.ralph/` files. */
  annotations: { readOnlyHint: boolean; destructiveHint: boolean; openWorldHint: boolean }
}

const READ_ONLY: readonly RalphToolName[] = ['snapshot', 'plan']

type JsonObject = Record<string, unknown>

/** The built-in description of `action`, keeping only the sentences of the allowed actions ("list: …"). */
function narrowActionText(text: string, allowed: readonly string[]): string {
  const parts = text.split(/(?=\b[a-z_]+: )/)
  return parts
    .filter((p) => allowed.some((a) => p.startsWith(`${a}: `)))
    .map((p) => p.trim())
    .join(' ')
}

/** The snapshot schema without the actions (and the `message` argument of save) an engine may not use. */
function narrowSnapshotSchema(schema: JsonObject): JsonObject {
  const properties = { ...(schema.properties as Record<string, JsonObject>) }
  const action = properties.action!
  properties.action = {
    ...action,
    enum: [...ENGINE_SNAPSHOT_ACTIONS],
    description: narrowActionText(String(action.description ?? ''), ENGINE_SNAPSHOT_ACTIONS),
  }
  delete properties.message
  const target = properties.target
  if (target?.description) {
    properties.target = {
      ...target,
      description: String(target.description).replace('Required for rollback; for diff it', 'For diff it'),
    }
  }
  return { ...schema, properties }
}

let offered: Promise<OfferedTool[]> | null = null

/** What the server lists, in order (computed once). */
export function offeredTools(): Promise<OfferedTool[]> {
  offered ??= Promise.all(
    RALPH_TOOL_NAMES.map(async (name) => {
      const tool = modelTools[name]!
      // The model's JSON schema, byte for byte what the built-in loop sends; `$schema` is left out (MCP's own).
      const { $schema: _draft, ...schema } = (await asSchema(tool.inputSchema).jsonSchema) as JsonObject
      const inputSchema = (
        name === 'snapshot' ? narrowSnapshotSchema(schema) : schema
      ) as OfferedTool['inputSchema']
      return {
        name,
        description: name === 'snapshot' ? SNAPSHOT_DESCRIPTION : tool.description,
        inputSchema,
        annotations: { readOnlyHint: READ_ONLY.includes(name), destructiveHint: false, openWorldHint: false },
      }
    }),
  )
  return offered
}

const isOffered = (name: string): name is RalphToolName =>
  (RALPH_TOOL_NAMES as readonly string[]).includes(name)

const refused = (output: string): ToolResult => ({ ok: false, output, changedFiles: [], completed: false })

/** Why a snapshot call is refused here, or null when its action is one an engine may use. */
function snapshotRefusal(args: unknown): string | null {
  const action = args && typeof args === 'object' ? (args as { action?: unknown }).action : undefined
  if (typeof action === 'string' && (ENGINE_SNAPSHOT_ACTIONS as readonly string[]).includes(action))
    return null
  const what = typeof action === 'string' ? `has no action "${action}" here` : 'needs an action'
  const why =
    action === 'save' || action === 'rollback'
      ? ' Ralph saves a snapshot before and after every task itself, and rolling back is the user’s decision.'
      : ''
  return `snapshot ${what}: the actions are ${SNAPSHOT_ACTIONS_TEXT}.${why}`
}

/** Runs one call as the built-in loop would; a tool not offered here, or a refused action, is an error result. */
export async function callRalphTool(name: string, args: unknown, ctx: ToolContext): Promise<ToolResult> {
  if (!isOffered(name)) {
    return refused(
      `There is no tool "${name}" on this server. Its tools are: ${RALPH_TOOL_NAMES.join(', ')}.`,
    )
  }
  if (name === 'snapshot') {
    const refusal = snapshotRefusal(args)
    if (refusal !== null) return refused(refusal)
  }
  return executeTool(name, args ?? {}, ctx)
}
