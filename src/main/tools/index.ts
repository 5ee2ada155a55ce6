// The model's tools (DESIGN.md §7): schemas the model sees, and one entry point the loop calls.
import type { z } from 'zod'
import { didYouMean } from '../plan'
import { normaliseRelative } from './paths'
import {
  isToolName,
  readOnlyToolNames,
  toolDescriptions,
  toolNamed,
  toolNames,
  toolSchemas,
  type ReadOnlyToolName,
  type ToolName,
} from './registry'
import { errorResult, type ReadContext, type RunContext, type ToolContext, type ToolResult } from './types'

export { isToolName, toolNames, toolSchemas, toolDescriptions, readOnlyToolNames }
export { tools, modelTools, readOnlyModelTools, toolListText, type ModelTool } from './registry'
export { defineTool, type ToolDefinition } from './defineTool'
export type { ReadContext, ReadOnlyToolName, ToolContext, ToolName, ToolResult }
export { resolveProjectPath } from './paths'
export { commandEnv, isSecretName } from './env'
export { HARNESS_OWNED_FILES, MODEL_WRITABLE_FILES } from './ralphFiles'
export { groupAlive, killGroup, killSandbox, watchLimits } from './processes'

/** Some providers send arguments as a JSON string, and null for optional arguments they leave out. */
function normaliseArgs(args: unknown): unknown {
  let value = args
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value)
    } catch (err) {
      // Not JSON after all: the schema check tells the model what is wrong with the arguments.
      if (!(err instanceof SyntaxError)) throw err
      return value
    }
  }
  if (value === undefined || value === null) return {}
  if (typeof value !== 'object' || Array.isArray(value)) return value
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== null && v !== undefined))
}

function usage(name: ToolName): string {
  const shape = toolSchemas[name].shape as Record<string, z.ZodType>
  const parts = Object.entries(shape).map(
    ([key, schema]) => `${key}${schema.safeParse(undefined).success ? '?' : ''}`,
  )
  return `${name} { ${parts.join(', ')} }`
}

function describeIssues(name: ToolName, error: z.ZodError): string {
  const keys = Object.keys(toolSchemas[name].shape)
  return error.issues
    .map((i) => {
      const at = i.path.length > 0 ? i.path.join('.') : 'arguments'
      if (i.code === 'invalid_type' && / received undefined$/.test(i.message)) {
        return `- ${at}: missing; this argument is required (${i.expected}).`
      }
      if (i.code === 'unrecognized_keys') {
        return i.keys
          .map((k) => `- "${k}" is not an argument of ${name}.${didYouMean(k, keys, (s) => `"${s}"`)}`)
          .join('\n')
      }
      return `- ${at}: ${i.message}`
    })
    .join('\n')
}

/**
 * Runs one tool call. Model mistakes (unknown tool, bad arguments, refused paths, missing files) come back as
 * `ok: false` results the model can read and correct; only bugs throw.
 */
export async function executeTool(name: string, args: unknown, ctx: ToolContext): Promise<ToolResult> {
  return execute(name, args, ctx, toolNames)
}

/** Runs one of the read-only tools (Ask mode); any other name is refused as if it did not exist. */
export async function executeReadTool(name: string, args: unknown, ctx: ReadContext): Promise<ToolResult> {
  return execute(name, args, ctx as ToolContext, readOnlyToolNames)
}

async function execute(
  name: string,
  args: unknown,
  ctx: ToolContext,
  allowed: readonly ToolName[],
): Promise<ToolResult> {
  if (!isToolName(name) || !allowed.includes(name)) {
    const hint = didYouMean(String(name), allowed)
    return errorResult(`There is no tool "${String(name)}".${hint} The tools are: ${allowed.join(', ')}.`)
  }
  const parsed = toolSchemas[name].safeParse(normaliseArgs(args))
  if (!parsed.success) {
    return errorResult(
      `Invalid arguments for ${name}:\n${describeIssues(name, parsed.error)}\nCall it as ${usage(name)}.`,
    )
  }
  const runCtx: RunContext = ctx
  try {
    return await toolNamed(name)!.run(parsed.data, runCtx)
  } catch (err) {
    // The file system refusing (permissions, a file where a folder should be, disk full) is the model's
    // business to work around, not a crash of the loop; anything else is a bug and propagates.
    const code = (err as NodeJS.ErrnoException).code
    if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) {
      return errorResult(`${name} failed: ${(err as Error).message.replace(ctx.projectDir + '/', '')}`)
    }
    throw err
  }
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys)
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, sortKeys((value as Record<string, unknown>)[k])]),
    )
  }
  return value
}

/**
 * Stable JSON of a call's arguments (sorted keys, nulls dropped, paths normalised) for the loop's stall
 * signatures: "./src/a.ts" and "src/a.ts" are the same call.
 */
export function canonicalArgs(name: string, args: unknown): string {
  let value = normaliseArgs(args)
  if (isToolName(name)) {
    const parsed = toolSchemas[name].safeParse(value)
    if (parsed.success) value = parsed.data
  }
  if (value && typeof value === 'object' && !Array.isArray(value) && 'path' in value) {
    const p = (value as { path: unknown }).path
    if (typeof p === 'string') value = { ...value, path: normaliseRelative(p) ?? p }
  }
  return JSON.stringify(sortKeys(value)) ?? 'null'
}

export { runShellCommand, type ShellOptions, type ShellOutcome } from './shell'
