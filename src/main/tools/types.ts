import type { SnapshotEngine } from '../snapshots'

export interface ToolContext {
  /** Absolute, real path of the project root. */
  projectDir: string
  /** Aborts in-flight work; run_command kills its whole process group. */
  signal: AbortSignal
  /** Default timeout for run_command (from .ralph/config.json, default 120000). */
  commandTimeoutMs: number
  snapshots: SnapshotEngine
  /** The current task N (for manual snapshots, plan validation and `plan diff` against task-N-pre). */
  taskNumber: number
  /** Base environment for run_command (default process.env); secrets are always stripped. */
  env?: NodeJS.ProcessEnv
}

/** What the read-only tools need: Ask mode runs them with no task, no snapshots and no commands. */
export type ReadContext = Pick<ToolContext, 'projectDir' | 'signal'>

/** The tools that only read the project: the ones Ask mode may use. */
export const readOnlyToolNames = ['read_file', 'list_files', 'grep'] as const
export type ReadOnlyToolName = (typeof readOnlyToolNames)[number]

export interface ToolResult {
  /** False = error result: the model sees the text. Tools never throw for model mistakes. */
  ok: boolean
  /** Text for the model, already truncated with a clear note when large. */
  output: string
  /** Files (project-relative) this call created/modified/deleted, for the loop's "no progress" detection. */
  changedFiles: string[]
  /** True when this call marked the task complete (mark_complete, or status.txt set to complete). */
  completed: boolean
}

export const toolNames = [
  'read_file',
  'write_file',
  'edit_file',
  'list_files',
  'grep',
  'run_command',
  'snapshot',
  'plan',
  'queue',
  'mark_complete',
] as const

export type ToolName = (typeof toolNames)[number]

export function okResult(output: string, extra: Partial<ToolResult> = {}): ToolResult {
  return { ok: true, output, changedFiles: [], completed: false, ...extra }
}

export function errorResult(output: string): ToolResult {
  return { ok: false, output, changedFiles: [], completed: false }
}
