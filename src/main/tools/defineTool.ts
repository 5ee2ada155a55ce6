// One model tool = one file: its name, what the model reads about it, its input schema, whether Ask mode may use
// it, and what it does (DESIGN.md §7). registry.ts lists them all; everything else is derived from that list.
import { z } from 'zod'
import type { ReadRunContext, RunContext, ToolResult } from './types'

export interface ToolDefinition<
  Name extends string = string,
  Schema extends z.ZodObject = z.ZodObject,
  ReadOnly extends boolean = boolean,
> {
  /** What the model calls it. */
  name: Name
  /** What the model reads about the tool. */
  description: string
  /** The arguments; their descriptions become the JSON schema the model sees. */
  schema: Schema
  /** True for the tools that only read the project: Ask mode may use them, with no task, snapshots or commands. */
  readOnly: ReadOnly
  /** Runs one call with arguments the schema accepted. Model mistakes are `ok: false` results, never throws. */
  run(args: z.infer<Schema>, ctx: ReadOnly extends true ? ReadRunContext : RunContext): Promise<ToolResult>
}

export function defineTool<
  const Name extends string,
  Schema extends z.ZodObject,
  const ReadOnly extends boolean,
>(tool: ToolDefinition<Name, Schema, ReadOnly>): ToolDefinition<Name, Schema, ReadOnly> {
  return tool
}

/** A path argument, described the same way for every tool that takes one. */
export const projectPath = (what: string) =>
  z
    .string()
    .describe(
      `${what} Relative to the project root, forward slashes (e.g. "src/app.ts"). Absolute paths, ".." out of the ` +
        'project, .git folders and .ralph/snapshots.git are refused.',
    )
