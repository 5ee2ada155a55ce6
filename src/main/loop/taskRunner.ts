import type { AppMcpServers } from '../mcp'
import { modelForProject } from './engineIteration'
import type { TaskCaps } from '../../shared/budget'
import { AppError, isAppError } from '../../shared/errors'
import { resolveSeesImages } from '../attachments'
import type { LoopEvent } from '../../shared/loopEvents'
import type { ContextWindowOverrides, ModelConfig, PriceOverrides } from '../llm'
import type { RunsRepo } from '../store'
import { type SnapshotIndex, acquireTaskLock, type TaskLock } from '../snapshots'
import { checkProjectFolder, type Logger } from '../workspace'
import { recoverInterruptedTask } from './crashRecovery'
import { RalphState } from './ralphState'
import { findInterruptedTask } from './resume'
import { runTask, type RunTaskResult } from './runTask'

export interface TaskRunnerDeps {
  runs: RunsRepo
  /** Where failures a task survives are recorded (the core's log file). */
  logger: Logger
  modelConfig(): ModelConfig
  /** The fast model for side jobs (parse, checkpoints) given the main one; null/absent: the main model. */
  fastModelConfig?(main: ModelConfig): ModelConfig | null
  prices(): PriceOverrides
  /** The user's context-window table (the `llm.contextWindows` setting); built-in windows when absent. */
  contextWindows?(): ContextWindowOverrides
  snapshotIndex(projectId: number): SnapshotIndex | undefined
  onEvent(projectId: number, event: LoopEvent): void
  onDelta(projectId: number, task: number, iteration: number, text: string): void
  onFinished(projectId: number, result: RunTaskResult): void
  /** The app-level MCP servers and the vault's secrets (the project's `.mcp.json` servers start without it). */
  mcpServers?(): AppMcpServers | null
}

/** Runs tasks in the background for the app hosts: one per project, each stoppable. */
export class TaskRunner {
  private readonly running = new Map<number, { controller: AbortController; done: Promise<RunTaskResult> }>()
  private readonly starting = new Set<number>()

  constructor(private readonly deps: TaskRunnerDeps) {}

  /**
   * Resolves once the task has started: a configuration error, or a task already running on the project here or
   * in another process (the CLI), is the caller's error, never a later event.
   */
  async start(
    project: { id: number; path: string },
    message: string,
    maxIterations?: number,
    opts: TaskCaps & { images?: { name: string; data: Uint8Array }[] } = {},
  ): Promise<void> {
    await this.launch(project, {
      message,
      maxIterations,
      maxCostUsd: opts.maxCostUsd,
      maxTokens: opts.maxTokens,
      images: opts.images,
    })
  }

  /** Whether the configured model can see images; `model` null when none is configured. */
  async modelSeesImages(): Promise<{ model: string | null; sees: boolean }> {
    let model: ModelConfig
    try {
      model = this.deps.modelConfig()
    } catch (err) {
      // No provider yet: nothing to warn about until one is chosen.
      if (isAppError(err, 'config')) return { model: null, sees: true }
      throw err
    }
    return { model: model.model, sees: await resolveSeesImages(model, this.deps.logger) }
  }

  /**
   * Resumes the project's interrupted task (same number, pre-task snapshot and run row). Resolves once it runs;
   * a project whose last task is not interrupted is refused here, with the reason, and nothing changes.
   */
  async resume(project: { id: number; path: string }, maxIterations?: number): Promise<void> {
    await this.launch(project, { message: '', maxIterations, resume: true })
  }

  /** The project's interrupted task (after crash recovery), or the error that says why there is none. */
  async interruptedTask(project: { id: number; path: string }): Promise<{ task: number; runId: number }> {
    if (await this.isRunningAnywhere(project)) {
      throw new AppError(
        'busy',
        'A task is running in this project: wait for it to finish, or stop it first.',
      )
    }
    const dir = checkProjectFolder(project.path)
    const found = await findInterruptedTask(new RalphState(dir), this.deps.runs, dir)
    return { task: found.task, runId: found.run.id }
  }

  private async launch(
    project: { id: number; path: string },
    opts: {
      message: string
      maxIterations?: number
      resume?: boolean
      maxCostUsd?: number
      maxTokens?: number
      images?: { name: string; data: Uint8Array }[]
    },
  ): Promise<void> {
    if (this.running.has(project.id) || this.starting.has(project.id)) {
      throw new AppError(
        'busy',
        'A task is already running in this project. Stop it or wait for it to finish.',
      )
    }
    this.starting.add(project.id)
    let taskLock
    let model: ModelConfig | null
    let fastModel: ModelConfig | null
    try {
      const dir = checkProjectFolder(project.path)
      model = await modelForProject(dir, () => this.deps.modelConfig())
      fastModel = (model && this.deps.fastModelConfig?.(model)) ?? null
      taskLock = await acquireTaskLock(dir, 'task')
      if (opts.resume) await this.checkResumable(dir, taskLock)
    } finally {
      this.starting.delete(project.id)
    }
    const controller = new AbortController()
    const done = runTask({
      taskLock,
      projectDir: project.path,
      message: opts.message,
      resume: opts.resume,
      model,
      fastModel,
      maxIterations: opts.maxIterations,
      ...(opts.maxCostUsd !== undefined ? { maxCostUsd: opts.maxCostUsd } : {}),
      ...(opts.maxTokens !== undefined ? { maxTokens: opts.maxTokens } : {}),
      ...(opts.images?.length ? { images: opts.images } : {}),
      signal: controller.signal,
      runs: this.deps.runs,
      projectId: project.id,
      snapshotIndex: this.deps.snapshotIndex(project.id),
      prices: this.deps.prices(),
      contextWindows: this.deps.contextWindows?.(),
      logger: this.deps.logger,
      mcpServers: this.deps.mcpServers?.() ?? null,
      emit: (event) => this.deps.onEvent(project.id, event),
      onTextDelta: (task, iteration, text) => this.deps.onDelta(project.id, task, iteration, text),
    })
      .catch(
        (err: unknown): RunTaskResult => ({
          status: 'failed',
          task: 0,
          iterations: 0,
          message: (err as Error).message || String(err),
          costUsd: 0,
        }),
      )
      .then((result) => {
        this.running.delete(project.id)
        this.deps.onFinished(project.id, result)
        return result
      })
    this.running.set(project.id, { controller, done })
  }

  /** A resume is refused here, before anything changes, so the caller hears why; the lock goes with it. */
  private async checkResumable(dir: string, taskLock: TaskLock): Promise<void> {
    try {
      await recoverInterruptedTask(dir, this.deps.runs, taskLock, this.deps.logger)
      await findInterruptedTask(new RalphState(dir), this.deps.runs, dir)
    } catch (err) {
      await taskLock.release()
      throw err
    }
  }

  /** Stops the project's task: the user's Stop, or with a ShutdownAbort reason, a shutdown (it ends interrupted). */
  async stop(projectId: number, reason?: unknown): Promise<boolean> {
    const entry = this.running.get(projectId)
    if (!entry) return false
    entry.controller.abort(reason)
    await entry.done
    return true
  }

  isRunning(projectId: number): boolean {
    return this.running.has(projectId)
  }

  /**
   * Whether a task runs on the project here or in another process; a task marked running whose process died
   * is marked interrupted on the way (status.txt and its run row).
   */
  async isRunningAnywhere(project: { id: number; path: string }): Promise<boolean> {
    if (this.running.has(project.id)) return true
    return recoverInterruptedTask(project.path, this.deps.runs, undefined, this.deps.logger)
  }

  async stopAll(reason?: unknown): Promise<void> {
    await Promise.all([...this.running.keys()].map((id) => this.stop(id, reason)))
  }
}
