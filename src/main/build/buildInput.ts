import type { EngineId } from '../engines'
import type { AppMcpServers } from '../mcp'
import type { ContextWindowOverrides, ModelConfig, PriceOverrides } from '../llm'
import type { SnapshotIndex } from '../snapshots'
import type { EscalationsRepo, RunsRepo, VerdictsRepo } from '../store'
import type { verifyTask } from '../verify'
import type { WorkersConfig } from '../workers'
import type { Logger } from '../workspace'
import type { BuildMode } from './decide'
import type { BuildBudget } from '../../shared/budget'
import type { UserEditsAnswer, UserEditsQuestion } from '../../shared/queueBuild'
import type { BuildEvent, BuildStatus } from './events'
import type { BuildNotification } from './notifications'

// What `ralph build` (any host) gives the build and gets back: one shape for the serial and the lanes build.

export interface BuildInput {
  projectDir: string
  /** Null when no provider is configured: the first task fails with a configuration error. */
  model: ModelConfig | null
  /** The fast model for side jobs: each task's parse and checkpoints, and the LLM verdicts; absent: `model`. */
  fastModel?: ModelConfig | null
  /** Every task's iteration engine (`ralph build --engine`); absent: the project's `.ralph/config.json` setting. */
  engine?: EngineId
  /**
   * Tasks built at once, each in its own lane (`ralph build --parallel N`, else "lanes.parallel" in
   * .ralph/config.json; 1–8, default 1). More than 1 runs the lanes build (laneBuild.ts, DESIGN.md §18).
   */
  parallel?: number
  /**
   * Where each lane's task runs (`ralph build --workers`, else "workers" in .ralph/config.json): this machine, or a
   * container on the Docker engine DOCKER_HOST names (workers/dockerLane.ts). Absent: this machine. Any backend
   * but local runs the lanes build, even with one lane; the merge and the verification stay on this machine.
   */
  workers?: WorkersConfig
  /** The app data folder, where lanes live (`<app data>/lanes/<project>/lane-N`); needed when `parallel` > 1. */
  appDataDir?: string
  /** Aborting stops the build cleanly: inside a task (as `ralph run` stops) or between tasks. */
  signal: AbortSignal
  emit(event: BuildEvent): void
  onTextDelta?(task: number, iteration: number, text: string): void
  runs: RunsRepo
  /** The app-level MCP servers and the vault's secrets, for every task of the build. */
  mcpServers?: AppMcpServers | null
  /** Where every verdict is stored (migration 009); null keeps them in the events only. */
  verdicts?: VerdictsRepo | null
  /**
   * Escalated tasks and waived rejections (migration 013): an escalation outlives the build, so the next one does
   * not start the task again. Null: escalations last as long as this build (tests of other behaviour).
   */
  escalations?: EscalationsRepo | null
  /** `ralph build --retry ID`: ends that task's escalation (fresh attempts) before building. */
  retry?: string
  projectId?: number | null
  snapshotIndex?: SnapshotIndex
  prices?: PriceOverrides
  contextWindows?: ContextWindowOverrides
  env?: NodeJS.ProcessEnv
  maxIterations?: number
  waitForLimits?: boolean
  /** What asks or pauses (seed 004's table); default hybrid. */
  mode?: BuildMode
  budget?: BuildBudget
  /** Failures of one task before it is rolled back and escalated; default 3. */
  maxFailures?: number
  /** The verification; tests inject their own. */
  verify?: typeof verifyTask
  /**
   * Seed 001's pre-flight: plan.jsonl differs from its history (a hand edit, a rollback). True commits it
   * ("ralph: update plan") and builds; false aborts. Without it the file is committed and the build says so.
   */
  confirmPlanCommit?(): Promise<boolean>
  /** Interactive mode asks here after a PASS; without it the build pauses for the approval. */
  approve?(question: string): Promise<boolean>
  /**
   * Lanes: a merged task's apply found the user's edits to files the task changes (`build.user-edits` is out).
   * keep-theirs, take-task or stop (see UserEditsAnswer); without it, or when it fails, the build stops there
   * (paused, nothing overwritten). `signal` aborts when the build is stopped while it asks.
   */
  answerUserEdits?(question: UserEditsQuestion, signal: AbortSignal): Promise<UserEditsAnswer>
  /** Raised for every notification file written (a desktop notification in the app). */
  notify?(notification: BuildNotification): void
  now?(): number
  /** Where failures the build survives are recorded (the core's log file); its tasks get it too. */
  logger: Logger
}

export interface BuildResult {
  status: BuildStatus
  message: string
  /** Queue tasks accepted by this build, in order. */
  accepted: string[]
  /** The task the build paused, escalated or stopped on. */
  taskId: string | null
  /** Set when the build stopped because the provider refused or is not configured (exit 5). */
  reason?: 'provider'
  costUsd: number
  durationMs: number
  /** Notification files written (relative to the project). */
  notifications: string[]
}
