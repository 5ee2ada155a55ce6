// Every model tool, in the order the model is shown them (DESIGN.md §7). Names, schemas, descriptions, the
// read-only set and the tool sets handed to the model are all derived from this one list. To add a tool: one file
// with defineTool (its name, description, schema, readOnly and run), its entry here, and modelTools.golden.json
// updated with what the model will now see (registry.test.ts).
import type { z } from 'zod'
import type { ToolDefinition } from './defineTool'
import { editFile } from './editFile'
import { grep } from './grep'
import { listFiles } from './listFiles'
import { markComplete } from './markComplete'
import { plan } from './planTool'
import { queue } from './queueTool'
import { readFile } from './readFile'
import { runCommand } from './runCommand'
import { snapshot } from './snapshotTool'
import { writeFile } from './writeFile'

export const tools = [
  readFile,
  writeFile,
  editFile,
  listFiles,
  grep,
  runCommand,
  snapshot,
  plan,
  queue,
  markComplete,
] as const

type AnyTool = (typeof tools)[number]
export type ToolName = AnyTool['name']
/** The tools that only read the project: the ones Ask mode may use. */
export type ReadOnlyToolName = Extract<AnyTool, { readOnly: true }>['name']

export const toolNames: readonly ToolName[] = tools.map((t) => t.name)
export const readOnlyToolNames: readonly ReadOnlyToolName[] = tools
  .filter((t): t is Extract<AnyTool, { readOnly: true }> => t.readOnly)
  .map((t) => t.name)

const byName = new Map<string, ToolDefinition>(tools.map((t) => [t.name, t as unknown as ToolDefinition]))

/** The tool of that name, or undefined. */
export const toolNamed = (name: string): ToolDefinition | undefined => byName.get(name)

export function isToolName(name: string): name is ToolName {
  return byName.has(name)
}

export const toolSchemas = Object.fromEntries(tools.map((t) => [t.name, t.schema])) as {
  [T in AnyTool as T['name']]: T['schema']
}
export const toolDescriptions = Object.fromEntries(tools.map((t) => [t.name, t.description])) as Record<
  ToolName,
  string
>

/** A tool as the model is offered it (the AI SDK's description and input schema). */
export interface ModelTool {
  description: string
  inputSchema: z.ZodType
}

function modelToolSet(names: readonly ToolName[]): Record<string, ModelTool> {
  return Object.fromEntries(
    names.map((name) => [name, { description: toolDescriptions[name], inputSchema: toolSchemas[name] }]),
  )
}

/** Every tool: what the loop offers the model. */
export const modelTools = modelToolSet(toolNames)
/** The read-only tools: what Ask mode offers the model. */
export const readOnlyModelTools = modelToolSet(readOnlyToolNames)

/** Names for a prompt's prose: "read_file, list_files and grep". */
export function toolListText(names: readonly string[]): string {
  return names.length <= 1
    ? names.join('')
    : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`
}
