import type { AppMcpServers } from '../mcp'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { BuildBudgetStatus, queueCalls } from '../../shared/api/queue'
import { AppError, isAppError } from '../../shared/errors'
import { describeIssues } from '../../shared/describeIssues'
import type { MutationResult } from '../../shared/queue'
import {
  applyBuildEvent,
  groupVerifications,
  idleBuild,
  queueBuildEventSchema,
  type BuildProgress,
  type QueueBuildEvent,
} from '../../shared/queueBuild'
import { runBuild, type BuildEvent, type BuildMode, type BuildNotification } from '../build'
import { DEFAULT_MAX_FAILURES } from '../build/decide'
import { editTaskClearing, removeTaskClearing, replanTask, retryEscalated } from '../build/escalations'
import type { ContextWindowOverrides } from '../llm/contextWindows'
import type { ModelConfig } from '../llm/createModel'
import type { PriceOverrides } from '../llm/pricing'
import type { TaskRunner } from '../loop/taskRunner'
import { modelForProject } from '../loop'
import { acceptTasks, addIssue, closeIssue, queryState, rejectTask, type MutateOptions } from '../queue'
import { addPanelTask, listNotifications, moveTask } from '../queue/panelCases'
import {
  watchRalphFolder,
  type RalphChange,
  type RalphWatch,
  type RalphWatchOptions,
} from '../queue/watchPlanFile'
import { BuildSpend } from '../build/spend'
import { MAX_PARALLEL, readLanesConfig } from '../lanes'
import { laneRunnerFor, readWorkersConfig, type WorkerBackend, type WorkersConfig } from '../workers'
import type { SnapshotIndex } from '../snapshots'
import { EscalationsRepo } from '../store/escalationsRepo'
import { RunsRepo } from '../store/runsRepo'
import { VerdictsRepo } from '../store/verdictsRepo'
import { isMissing, noteFailure } from '../workspace/failures'
import type { Logger } from '../workspace/logFile'
import { planVersion } from './plan'
import { queueSpecHandlers } from './queueSpec'
import { UserEditsAnswers } from './queueUserEdits'
import type { ApiContext, Handlers } from './types'

/**
 * The Queue panel's calls: each one a queue use-case (the same functions as `ralph query|task|issue`) on the
 * project's folder. A mutation that wrote the file announces it with `queue.changed`.
 */
async function mutation(
  ctx: ApiContext,
  projectId: number,
  run: (projectDir: string, options: MutateOptions) => Promise<MutationResult>,
): Promise<MutationResult> {
  const result = await run(ctx.resolveProject(projectId).path, { logger: ctx.logger })
  if (result.commit !== null) ctx.emit('queue.changed', { projectId, commit: result.commit })
  return result
}

/** A panel build's choices (`queue.build`); each one absent is the project's own. */
interface BuildOptions {
  mode?: BuildMode
  maxCostUsd?: number
  maxMinutes?: number
  parallel?: number
  workers?: WorkerBackend
}

// Streamed text is for the chat's live line; the panel shows steps, not tokens.
const QUIET = new Set<BuildEvent['type']>(['llm.delta'])
// The core's BuildEvent must be what the contract's schema describes: this fails to compile when they drift.
const onTheWire = (event: BuildEvent): QueueBuildEvent => event

/**
 * An event the contract refuses would end the build from inside its emit (the bus checks every payload): it is left
 * out of the panel instead, and the log says which and why.
 */
function fitsTheContract(event: BuildEvent, logger: Logger): boolean {
  const checked = queueBuildEventSchema.safeParse(event)
  if (checked.success) return true
  logger.warn(
    `a build event the Queue panel cannot carry was left out (${event.type}): ${describeIssues(checked.error.issues)}`,
  )
  return false
}

/**
 * The `.ralph/` folder of each project a client reads the queue of, watched for writers that send no event (the
 * CLI, `ralph build` in a terminal, the model's shell, a rollback, a hand edit), so the panel needs no polling.
 * Started by the first queue call for a project, closed with the core.
 */
export class QueueWatchers {
  private readonly watches = new Map<number, { dir: string; watch: RalphWatch }>()

  constructor(
    private readonly logger: Logger,
    private readonly options: RalphWatchOptions = {},
  ) {}

  /** Watches the project's `.ralph/` (once); null when the project is unknown (the call itself says so). */
  watch(ctx: ApiContext, projectId: number): RalphWatch | null {
    let dir: string
    try {
      dir = ctx.resolveProject(projectId).path
    } catch (err) {
      if (!isAppError(err, 'not-found'))
        noteFailure(ctx.logger, `the queue of project ${projectId} is not watched`, err)
      return null
    }
    const found = this.watches.get(projectId)
    if (found?.dir === dir) return found.watch
    found?.watch.close()
    const watch = watchRalphFolder(dir, (changes) => void this.announce(ctx, projectId, dir, changes), {
      ...this.options,
      onFallback: (err) => this.logger.warn(`cannot watch ${join(dir, '.ralph')}: polling it instead`, err),
    })
    this.watches.set(projectId, { dir, watch })
    return watch
  }

  private async announce(ctx: ApiContext, projectId: number, dir: string, changes: ReadonlySet<RalphChange>) {
    if (changes.has('queue')) ctx.emit('queue.changed', { projectId, commit: null })
    if (changes.has('notifications')) ctx.emit('queue.notificationsChanged', { projectId })
    if (changes.has('plan')) {
      const text = await readFile(join(dir, '.ralph', 'plan.tsx'), 'utf8').catch((err: unknown) => {
        // No plan yet is a plan of its own (version of nothing); an unreadable one is noted.
        if (!isMissing(err))
          noteFailure(ctx.logger, `${join(dir, '.ralph', 'plan.tsx')} could not be read`, err)
        return null
      })
      if (this.watches.get(projectId)?.dir === dir)
        ctx.emit('plan.changed', { projectId, version: planVersion(text) })
    }
  }

  close(): void {
    for (const { watch } of this.watches.values()) watch.close()
    this.watches.clear()
  }
}

export interface QueueBuildDeps {
  /** The chat's and `tasks.start`'s runner: a build never starts beside one of its tasks. */
  runner: TaskRunner
  modelConfig(): ModelConfig
  /** The fast model for side jobs (parse, checkpoints, verdicts) given the main one; null/absent: the main model. */
  fastModelConfig?(main: ModelConfig): ModelConfig | null
  prices(): PriceOverrides
  contextWindows(): ContextWindowOverrides
  snapshotIndex(projectId: number): SnapshotIndex | undefined
  logger: Logger
  /** The app-level MCP servers and the vault's secrets, for the build's tasks. */
  mcpServers?(): AppMcpServers | null
}

/**
 * Builds started from the Queue panel, one per project, each stoppable: `runBuild` (the same as `ralph build`)
 * in the background, its events forwarded as `queue.buildEvent`, its progress kept for `queue.buildStatus`.
 * Interactive mode's approvals wait in the panel (`queue.approve`).
 */
export class QueueBuilds {
  private readonly running = new Map<number, { controller: AbortController; done: Promise<unknown> }>()
  private readonly progress = new Map<number, BuildProgress>()
  /** Interactive builds waiting for the panel's answer. */
  private readonly approvals = new Map<number, (approved: boolean) => void>()
  private readonly spend = new Map<number, BuildSpend>()
  /** What each project's build's lifecycle tasks have cost so far: a lane's spend. */
  private readonly runCosts = new Map<number, (task: number) => number>()
  /** The projects' `.ralph/` watchers: they live as long as the core, so they close with its builds. */
  readonly watchers: QueueWatchers
  /** Lanes builds asking about the user's edits in an apply's way (`queue.answerUserEdits`). */
  readonly userEdits = new UserEditsAnswers()

  constructor(private readonly deps: QueueBuildDeps) {
    this.watchers = new QueueWatchers(deps.logger)
  }

  status(projectId: number): BuildProgress {
    return this.progress.get(projectId) ?? idleBuild(DEFAULT_MAX_FAILURES)
  }

  /** The progress with the build's budget and spend (each lane's too), as `queue.buildStatus` answers. */
  statusWithBudget(projectId: number): BuildProgress & { budget?: BuildBudgetStatus } {
    const budget = this.spend.get(projectId)?.status()
    const progress = this.withLaneSpend(projectId, this.status(projectId))
    return budget ? { ...progress, budget } : progress
  }

  /** Each lane's spend so far: its attempt's run, read when asked (the events do not carry costs). */
  private withLaneSpend(projectId: number, progress: BuildProgress): BuildProgress {
    const runCost = this.runCosts.get(projectId)
    if (!runCost || progress.lanes.length === 0) return progress
    return { ...progress, lanes: progress.lanes.map((l) => ({ ...l, spentUsd: runCost(l.task) })) }
  }

  isRunning(projectId: number): boolean {
    return this.running.has(projectId)
  }

  /** Refuses a start while a build or a chat task runs in the project. */
  private async refuseWhileBusy(projectId: number): Promise<void> {
    // A build that has said it finished is only releasing its lock: the panel already offers Build (and Retry),
    // so a start in that window waits for the release instead of refusing.
    const ending = this.running.get(projectId)
    if (ending && !this.status(projectId).running) await ending.done
    if (this.running.has(projectId))
      throw new AppError(
        'busy',
        'A build is already running in this project. Stop it or wait for it to finish.',
      )
    if (this.deps.runner.isRunning(projectId))
      throw new AppError(
        'busy',
        'A task is running in this project: wait for it to finish or stop it, then build.',
      )
  }

  /** Resolves once the build has started (its first event); anything refused before that is the caller's error. */
  async start(ctx: ApiContext, projectId: number, opts: BuildOptions): Promise<void> {
    const project = ctx.resolveProject(projectId)
    await this.refuseWhileBusy(projectId)
    // No Lanes choice: the project's own (a broken config.json is this call's error, in its words).
    const parallel = opts.parallel ?? (await readLanesConfig(project.path)).parallel
    const workers = await workersChoice(project.path, opts.workers)
    const model = await modelForProject(project.path, () => this.deps.modelConfig())
    const fastModel = (model && this.deps.fastModelConfig?.(model)) ?? null
    const controller = new AbortController()
    let hasStarted = false
    let started!: () => void
    const firstEvent = new Promise<void>((resolve) => (started = resolve))
    // A parallel build asks about the task it has just merged, not the one its last lane started.
    let merged: string | null = null
    const runCost = runCostOf(new RunsRepo(ctx.db), project.path)
    const spend = new BuildSpend(runCost)
    const emit = (event: BuildEvent) => {
      hasStarted = true
      started()
      if (QUIET.has(event.type)) return
      if (event.type === 'build.started') {
        this.spend.set(projectId, spend)
        this.runCosts.set(projectId, runCost)
      }
      spend.apply(event)
      if (event.type === 'build.merged') merged = event.taskId
      if (!fitsTheContract(event, this.deps.logger)) return
      emitPanel(onTheWire(event))
      const commit = queueCommitOf(event)
      if (commit !== undefined) ctx.emit('queue.changed', { projectId, commit })
    }
    const notify = (n: BuildNotification) =>
      ctx.emit('queue.notice', {
        projectId,
        notice: { event: n.event, taskId: n.taskId, title: n.title, message: n.message, path: n.path },
      })
    const emitPanel = (event: QueueBuildEvent) => {
      const next = applyBuildEvent(this.status(projectId), event, Date.now())
      this.progress.set(projectId, event.type === 'build.started' ? { ...next, parallel } : next)
      ctx.emit('queue.buildEvent', { projectId, event })
    }
    // Interactive mode: the question waits in the panel (Accept / Reject) until answered or the build stops.
    const approve = (question: string) =>
      new Promise<boolean>((resolve) => {
        const taskId = merged ?? this.status(projectId).current?.taskId ?? null
        this.approvals.set(projectId, (approved) => {
          this.approvals.delete(projectId)
          emitPanel({ type: 'build.approved', taskId, approved })
          resolve(approved)
        })
        emitPanel({ type: 'build.approval', taskId, question })
      })
    const db = ctx.db
    const done = runBuild({
      projectDir: project.path,
      model,
      fastModel,
      mode: opts.mode ?? 'hybrid',
      parallel,
      ...(workers ? { workers } : {}),
      // Lanes live in the app's data folder (DESIGN.md §18), never in the project.
      appDataDir: ctx.appDataDir,
      budget: { maxCostUsd: opts.maxCostUsd ?? null, maxMinutes: opts.maxMinutes ?? null },
      signal: controller.signal,
      runs: new RunsRepo(db),
      verdicts: new VerdictsRepo(db),
      escalations: new EscalationsRepo(db),
      mcpServers: this.deps.mcpServers?.() ?? null,
      projectId,
      snapshotIndex: this.deps.snapshotIndex(projectId),
      prices: this.deps.prices(),
      contextWindows: this.deps.contextWindows(),
      emit,
      notify,
      approve,
      answerUserEdits: this.userEdits.asker(projectId),
      logger: this.deps.logger,
    })
    const entry = {
      controller,
      done: done.then(
        () => undefined,
        (err: unknown) => {
          if (!hasStarted) return
          this.deps.logger.error(`the build of project ${projectId} failed`, err)
          // A failure after the start still ends the panel's progress, with the reason.
          if (this.status(projectId).running)
            emit({
              type: 'build.finished',
              status: 'failed',
              message: (err as Error).message || String(err),
              accepted: [],
              costUsd: 0,
              durationMs: 0,
            })
        },
      ),
    }
    this.running.set(projectId, entry)
    void entry.done.finally(() => {
      if (this.running.get(projectId) === entry) this.running.delete(projectId)
    })
    // Refusals (another loop holds the lock, nothing to build, done tasks waiting) come before the first event.
    const refused = await Promise.race([
      firstEvent.then(() => null),
      done.then(
        () => null,
        (err: unknown) => err,
      ),
    ])
    if (refused !== null) {
      if (this.running.get(projectId) === entry) this.running.delete(projectId)
      throw refused
    }
  }

  /**
   * The user accepted or rejected tasks after the build ended: the build that stopped on them stops saying it
   * waits (`build.settled`), here where every view reads it. Its progress says whether it ended (a result, not
   * running), not its entry: that stays until the build has released its lock, after its last event, and the
   * panel's one-step Reject answers in that window.
   */
  settle(
    ctx: ApiContext,
    projectId: number,
    ids: readonly string[],
    decision: 'accepted' | 'rejected',
  ): void {
    for (const taskId of ids) {
      const before = this.status(projectId)
      if (before.running || !before.result || !before.tasks.some((t) => t.taskId === taskId)) continue
      const event: QueueBuildEvent = { type: 'build.settled', taskId, decision }
      this.progress.set(projectId, applyBuildEvent(before, event, Date.now()))
      ctx.emit('queue.buildEvent', { projectId, event })
    }
  }

  /** Answers the waiting approval; false when the build waits for none. */
  answer(projectId: number, approved: boolean): boolean {
    const answer = this.approvals.get(projectId)
    answer?.(approved)
    return answer !== undefined
  }

  async stop(projectId: number, reason?: unknown): Promise<boolean> {
    const entry = this.running.get(projectId)
    if (!entry) return false
    entry.controller.abort(reason)
    // A build waiting for an approval hears "no": it pauses with the task done, for Accept / Reject later.
    this.answer(projectId, false)
    await entry.done
    return true
  }

  /** When the core closes: stops every build and closes the `.ralph/` watchers. */
  async stopAll(reason?: unknown): Promise<void> {
    this.watchers.close()
    await Promise.all([...this.running.keys()].map((id) => this.stop(id, reason)))
  }
}

/**
 * The plan.jsonl commit a build event announces (`queue.changed`), null for a change without one, undefined when
 * the event does not change the queue. A rollback restores plan.jsonl from the snapshot; the end re-reads what the
 * build left.
 */
function queueCommitOf(event: BuildEvent): string | null | undefined {
  if (
    event.type === 'build.accepted' ||
    event.type === 'build.rejected' ||
    event.type === 'build.plan-committed'
  )
    return event.commit
  return event.type === 'build.rollback' || event.type === 'build.finished' ? null : undefined
}

/** What a lifecycle task's latest run in the project has cost so far (0 before its run row exists). */
function runCostOf(runs: RunsRepo, projectPath: string): (task: number) => number {
  return (task) => {
    const run = runs.latestRun(projectPath, task)
    return run ? runs.costForRun(run.id).usd : 0
  }
}

/** The queue calls; the build's need the core's `QueueBuilds`. */
export const createQueueHandlers = (builds: QueueBuilds): Handlers<typeof queueCalls> => ({
  ...settling(builds, watched(builds.watchers, queueHandlers)),
  ...queueSpecHandlers,
  'queue.build': async ({ projectId, ...opts }, ctx) => {
    await builds.start(ctx, projectId, opts)
    return { started: true as const }
  },
  'queue.answerUserEdits': async ({ projectId, answer }) => ({
    answered: builds.userEdits.answer(projectId, answer),
  }),
  'queue.stopBuild': async ({ projectId }) => ({ stopped: await builds.stop(projectId) }),
  'queue.approve': async ({ projectId, approve }) => ({ answered: builds.answer(projectId, approve) }),
  'queue.buildDefaults': async ({ projectId }, ctx) => buildDefaults(ctx.resolveProject(projectId).path),
  // The project page asks this whenever a project is open: from then on its `.ralph/` is watched.
  'queue.buildStatus': async ({ projectId }, ctx) => {
    ctx.resolveProject(projectId)
    await builds.watchers.watch(ctx, projectId)?.ready
    return builds.statusWithBudget(projectId)
  },
  'queue.verdicts': async ({ projectId, taskId }, ctx) => {
    const rows = new VerdictsRepo(ctx.db).listByTask(ctx.resolveProject(projectId).path, taskId)
    // Each attempt's task number, from its run: the Queue shows what the attempt changed (task-N-pre → post).
    const runs = new RunsRepo(ctx.db)
    const taskOf = (runId: number | null | undefined) => (runId ? (runs.getRun(runId)?.task ?? null) : null)
    return {
      verifications: groupVerifications(rows).map((v) => ({ ...v, task: taskOf(v.verdicts[0]?.runId) })),
    }
  },
})

/**
 * The project's "workers" with the build's Workers choice over its backend (null: this machine), as `ralph build
 * --workers` takes it: a backend this build cannot run is refused before anything starts.
 */
async function workersChoice(
  projectDir: string,
  chosen: WorkerBackend | undefined,
): Promise<WorkersConfig | null> {
  const config = await readWorkersConfig(projectDir)
  const workers = { ...config, backend: chosen ?? config.backend }
  if (workers.backend === 'local') return null
  laneRunnerFor(workers)
  return workers
}

/**
 * The project's "lanes.parallel" and "workers.backend" for the Build controls; a config that cannot be read says why
 * (and the defaults).
 */
async function buildDefaults(projectDir: string): Promise<{
  parallel: number
  maxParallel: number
  workers: WorkerBackend
  problem: string | null
}> {
  const problems: string[] = []
  const read = <T>(what: Promise<T>, fallback: T): Promise<T> =>
    what.catch((err: unknown) => {
      if (!isAppError(err, 'config')) throw err
      problems.push(err.message)
      return fallback
    })
  const [lanes, workers] = await Promise.all([
    read(
      readLanesConfig(projectDir).then((c) => c.parallel),
      1,
    ),
    read(
      readWorkersConfig(projectDir).then((c) => c.backend),
      'local' as WorkerBackend,
    ),
  ])
  return {
    parallel: lanes,
    maxParallel: MAX_PARALLEL,
    workers,
    problem: problems.length > 0 ? problems.join(' ') : null,
  }
}

/** What the Queue decides (Accept, Reject) after a build ended on it, the build's status says too. */
function settling(builds: QueueBuilds, handlers: typeof queueHandlers): typeof queueHandlers {
  return {
    ...handlers,
    'queue.accept': async (input, ctx) => {
      const result = await handlers['queue.accept'](input, ctx)
      builds.settle(ctx, input.projectId, input.ids, 'accepted')
      return result
    },
    'queue.reject': async (input, ctx) => {
      const result = await handlers['queue.reject'](input, ctx)
      builds.settle(ctx, input.projectId, [input.id], 'rejected')
      return result
    },
  }
}

/** Reads: what they return is what the watcher would announce, so a write meanwhile must still be announced. */
const READS = new Set<string>(['queue.state', 'queue.notifications', 'queue.escalations'])

/**
 * A client that calls the queue of a project is looking at it: watch its `.ralph/` from then on. A mutation runs
 * `quietly`, since it announces its own write with its commit (no second `queue.changed` from the watcher).
 */
function watched<H extends object>(watchers: QueueWatchers, handlers: H): H {
  type Handler = (input: { projectId: number }, ctx: ApiContext) => Promise<unknown>
  const wrapped: Record<string, Handler> = {}
  for (const [name, handler] of Object.entries(handlers) as [string, Handler][]) {
    wrapped[name] = async (input, ctx) => {
      const watch = watchers.watch(ctx, input.projectId)
      if (!watch) return handler(input, ctx)
      // Once the call has answered, any later outside write is announced: the watcher knows the files by then.
      await watch.ready
      if (READS.has(name)) return handler(input, ctx)
      return watch.quietly(() => handler(input, ctx))
    }
  }
  return wrapped as H
}

const queueHandlers: Omit<
  Handlers<typeof queueCalls>,
  | 'queue.build'
  | 'queue.answerUserEdits'
  | 'queue.stopBuild'
  | 'queue.approve'
  | 'queue.buildDefaults'
  | 'queue.buildStatus'
  | 'queue.verdicts'
  | 'queue.spec'
  | 'queue.saveSpec'
> = {
  'queue.state': async ({ projectId }, ctx) => queryState({ projectDir: ctx.resolveProject(projectId).path }),

  'queue.addTask': ({ projectId, ...input }, ctx) =>
    mutation(ctx, projectId, (projectDir, options) => addPanelTask({ projectDir, ...input, options })),

  'queue.editTask': ({ projectId, ...input }, ctx) =>
    mutation(ctx, projectId, (projectDir, options) =>
      editTaskClearing({ projectDir, escalations: new EscalationsRepo(ctx.db), ...input, options }),
    ),

  'queue.removeTask': ({ projectId, id }, ctx) =>
    mutation(ctx, projectId, (projectDir, options) =>
      removeTaskClearing({ projectDir, escalations: new EscalationsRepo(ctx.db), id, options }),
    ),

  'queue.reorder': ({ projectId, id, direction }, ctx) =>
    mutation(ctx, projectId, (projectDir, options) => moveTask({ projectDir, id, direction, options })),

  'queue.accept': ({ projectId, ids }, ctx) =>
    mutation(ctx, projectId, (projectDir, options) => acceptTasks({ projectDir, ids, options })),

  'queue.reject': ({ projectId, id, reason }, ctx) =>
    mutation(ctx, projectId, (projectDir, options) => rejectTask({ projectDir, id, reason, options })),

  'queue.replan': ({ projectId, id, note }, ctx) =>
    mutation(ctx, projectId, (projectDir, options) =>
      replanTask({ projectDir, escalations: new EscalationsRepo(ctx.db), id, note, options }),
    ),

  'queue.escalations': async ({ projectId }, ctx) => ({
    items: new EscalationsRepo(ctx.db).listOpen(ctx.resolveProject(projectId).path),
  }),

  'queue.retry': async ({ projectId, id }, ctx) => ({
    retried: await retryEscalated({
      projectDir: ctx.resolveProject(projectId).path,
      escalations: new EscalationsRepo(ctx.db),
      id,
    }),
  }),

  'queue.addIssue': ({ projectId, desc }, ctx) =>
    mutation(ctx, projectId, (projectDir, options) => addIssue({ projectDir, desc, options })),

  'queue.closeIssue': ({ projectId, id }, ctx) =>
    mutation(ctx, projectId, (projectDir, options) => closeIssue({ projectDir, id, options })),

  'queue.notifications': async ({ projectId, limit }, ctx) =>
    listNotifications({ projectDir: ctx.resolveProject(projectId).path, limit }),
}
