// What one run of a task is given and returns, and the per-run things every step of it shares: the project's
// state files, its snapshot engine (holding the task lock), the recorder of its run row, its caps, and where it is.
import type { AppMcpServers, McpSession } from '../mcp'
import type { TaskOutcome } from '../../shared/api/tasks'
import type { LoopEvent, TaskReceipt } from '../../shared/loopEvents'
import type { StructuredTask } from '../../shared/task'
import type { ContextWindowOverrides, ModelConfig, PriceOverrides, RetryPolicy, UsageEntry } from '../llm'
import type { ParseTaskResult } from '../tasks'
import { SnapshotEngine, type SnapshotIndex, type TaskLock } from '../snapshots'
import type { RunsRepo } from '../store'
import type { Logger } from '../workspace'
import type { EngineId } from '../engines'
import type { FailReason } from './decide'
import { RalphState } from './ralphState'
import { LoopRecorder } from './recorder'
import { TaskCaps } from './taskCaps'

/** A task's parse started ahead of its run: the run takes its answer instead of asking the model itself. */
export interface ParseAhead {
  /** Its answer; its call's usage goes to `record` (what it recorded before the take, at once). */
  take(record: (entry: UsageEntry) => void): Promise<ParseTaskResult>
}

export interface RunTaskInput {
  projectDir: string
  /** The request; ignored with `resume` (the task keeps its own). */
  message: string
  /**
   * Continue the project's interrupted task (its process died mid-task) instead of starting one: the same task
   * number, pre-task snapshot and run row, from the iteration after the one that was cut short. Refused (an
   * AppError, nothing changed) when the last task is not interrupted.
   */
  resume?: boolean
  /** Null when no provider is configured: the parser falls back and the loop fails with a config error. */
  model: ModelConfig | null
  /** The fast model for side jobs: the parse and checkpoints (DESIGN.md §9); null/absent: `model` does them. */
  fastModel?: ModelConfig | null
  maxIterations?: number
  signal: AbortSignal
  emit(event: LoopEvent): void
  onTextDelta?(task: number, iteration: number, text: string): void
  runs: RunsRepo
  projectId?: number | null
  snapshotIndex?: SnapshotIndex
  prices?: PriceOverrides
  env?: NodeJS.ProcessEnv
  /** The task lock, when the host took it already (to answer "busy" before starting); released at the end. */
  taskLock?: TaskLock
  /** The user's context-window table (`ralph config set context`); built-in windows otherwise. */
  contextWindows?: ContextWindowOverrides
  /** False: a usage limit fails the task instead of waiting for its reset (`ralph run --no-wait`). Default true. */
  waitForLimits?: boolean
  /** The iteration calls' retry policy; its `maxRetryAfterMs` is where a 429's reset becomes a usage-limit wait. */
  retry?: Partial<RetryPolicy>
  /**
   * Markdown appended to task.md after the parse (`ralph build`: the queue task's id, notes and acceptance
   * criteria), so every iteration sees it.
   */
  taskContext?: string
  /** feedback.md for the first iteration of a new task (`ralph build`: why earlier attempts failed). */
  feedback?: string
  /** Keep the task lock held when the task ends: `ralph build` holds one lock across all its tasks. */
  keepTaskLock?: boolean
  /**
   * Always start a new task: a task waiting for a clarification is not continued with this message as its answer
   * (`ralph build`: a queue task is never the answer to another task's question).
   */
  newTask?: boolean
  /**
   * The task's cost cap in dollars (`ralph run --max-cost`, the composer's cap): a warning event at 75%, and at
   * 100% the task ends (reason `cost-cap`) as soon as the model call that reached it returns. Absent: no cap.
   */
  maxCostUsd?: number
  /**
   * The task's token cap (the composer's, when the model has no price the cost cap could count): the same warning
   * and stop over the tokens its model calls used, prompts and answers. Absent: no token cap.
   */
  maxTokens?: number
  /** Where failures the task survives are recorded (the core's log file). */
  logger: Logger
  /** The task's parse, started before this run (a lanes build starts it while the task's lane is made). */
  parseAhead?: ParseAhead
  /**
   * The app-level MCP servers and the vault's secrets (the host's). The project's `.mcp.json` servers start
   * without it too; their `${NAME}` placeholders then have no values.
   */
  mcpServers?: AppMcpServers | null
  /**
   * Images for a new task (already checked by `validateImage`): stored under `.ralph/attachments/task-N/` before
   * task-N-pre, so its snapshots hold them, and sent with every iteration.
   */
  images?: { name: string; data: Uint8Array }[]
  /**
   * The iteration engine for this task (`ralph run --engine`), instead of the project's `.ralph/config.json`
   * "engine". An agent engine needs no provider: the parse falls back to its template without one.
   */
  engine?: EngineId
  /** A lane's run (issue #38): its run row is the user's project's (`projectPath`), with the lane's number. */
  recordAs?: { projectPath: string; lane: number }
  /** Runs after task-N-pre, before the parse and the first iteration (a lane's setup); a message fails the task. */
  beforeIterations?: () => Promise<string | null>
}

export type RunTaskStatus = TaskOutcome

export interface RunTaskResult {
  status: RunTaskStatus
  task: number
  iterations: number
  message: string
  costUsd: number
  question?: string
  reason?: FailReason
  /** The task's run row in SQLite (absent when the task never got one). */
  runId?: number
  /** Tokens, cost, calls, iterations, checkpoints and limit waits; absent when the task never got a run row. */
  receipt?: TaskReceipt
}

/** The input once the project folder is checked. */
export type TaskInput = RunTaskInput & { projectDir: string }

/** One task's run: what its set-up, iterations and end read and update. */
export class TaskRun {
  readonly state: RalphState
  readonly engine: SnapshotEngine
  readonly rec: LoopRecorder
  readonly caps: TaskCaps
  /** The iteration running, or the last one that ran (0 before the first). */
  iteration = 0
  /** The parsed task: parsed by this run, or kept from before an interruption. */
  structured: StructuredTask | null = null
  /** The task's MCP servers while its iterations run. */
  mcp: McpSession | null = null

  constructor(
    readonly input: TaskInput,
    taskLock: TaskLock,
  ) {
    this.state = new RalphState(input.projectDir)
    this.engine = new SnapshotEngine({
      projectDir: input.projectDir,
      index: input.snapshotIndex,
      taskLock,
      logger: input.logger,
    })
    this.rec = new LoopRecorder(input.runs, (event) => input.emit(event))
    this.caps = new TaskCaps({
      maxCostUsd: input.maxCostUsd,
      maxTokens: input.maxTokens,
      rec: this.rec,
      runs: input.runs,
      prices: input.prices,
    })
  }

  get task(): number {
    return this.rec.task
  }

  emit(event: LoopEvent): void {
    this.rec.emit(event)
  }
}
