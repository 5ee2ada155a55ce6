import type { SnapshotEngine } from '../snapshots'
import type { Logger } from '../workspace'

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
  /**
   * Where failures a tool survives are recorded (the core's log). Optional only while callers outside tools/ are
   * being wired; without it those failures are not recorded.
   */
  logger: Logger
}

/** What the read-only tools need: Ask mode runs them with no task, no snapshots and no commands. */
export type ReadContext = Pick<ToolContext, 'projectDir' | 'signal' | 'logger'>

/** What a tool runs with: the caller's context with its logger settled. */
export type RunContext = ToolContext & { logger: Logger }
export type ReadRunContext = ReadContext & { logger: Logger }

export interface ToolResult {
  /** False = error result: the model sees the text. Tools never throw for model mistakes. */
  ok: boolean
  /** Text for the model, already truncated with a clear note when large. */
  output: string
  /** Files (project-relative) this call created/modified/deleted, for the loop's "no progress" detection. */
  changedFiles: string[]
  /** True when this call marked the task complete (mark_complete, or status.txt set to complete). */
  completed: boolean
  /** An image the call read (read_file of a PNG …): the loop shows it to a model that can see images. */
  image?: { name: string; data: Uint8Array; mediaType: string }
}

export function okResult(output: string, extra: Partial<ToolResult> = {}): ToolResult {
  return { ok: true, output, changedFiles: [], completed: false, ...extra }
}

export function errorResult(output: string): ToolResult {
  return { ok: false, output, changedFiles: [], completed: false }
}
