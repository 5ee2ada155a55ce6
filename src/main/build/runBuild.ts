import type { EngineId } from '../engines'
import type { AppMcpServers } from '../mcp'
import { AppError, isAppError } from '../../shared/errors'
import type { QueueEscalation } from '../../shared/api/queue'
import type { TaskView } from '../../shared/queue'
import type { ContextWindowOverrides, ModelConfig, PriceOverrides } from '../llm'
import { abortedByShutdown, preTag, postTag, runTask, type RunTaskResult, type ShutdownAbort } from '../loop'
import {
  acceptTasks,
  markTaskDone,
  queryNext,
  queryState,
  rejectTask,
  commitPlanFile,
  planUncommitted,
} from '../queue'
import { SnapshotEngine, type SnapshotIndex, acquireTaskLock, type TaskLock } from '../snapshots'
import type { EscalationsRepo, RunsRepo, VerdictsRepo } from '../store'
import { verifyTask } from '../verify'
import { initRalphDir, checkProjectFolder, attempt, type Logger } from '../workspace'
import { approvalMessage, nothingToBuild, openIssuesNote, waitingForDecision } from './buildMessages'
import {
  DEFAULT_MAX_FAILURES,
  decideAttempt,
  escalationHelp,
  freshAttempts,
  type AttemptOutcome,
  type BuildAction,
  type BuildMode,
  type NotificationEvent,
  type TaskAttempts,
} from './decide'
import { checkBudget, describeBudget, type BudgetKind, type BuildBudget } from '../../shared/budget'
import { escalatedReason, retryEscalated } from './escalations'
import type { BuildEvent, BuildStatus } from './events'
import { writeNotification, type BuildNotification } from './notifications'
import { retryFeedback, taskContext, taskMessage } from './taskPrompt'

/** "Stopped by the user …", or for a shutdown (Ctrl+C, SIGTERM, the app quitting) what shut Ralph down. */
function stopWords(signal: AbortSignal, where: string): string {
  return abortedByShutdown(signal)
    ? `Interrupted ${where}: ${(signal.reason as ShutdownAbort).message}`
    : `Stopped by the user ${where}.`
}

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
   * .ralph/config.json; 1–8, default 1). Not read yet: the build runs one task at a time until the lanes
   * orchestration (issue #38) lands, and the hosts refuse more than 1 until then.
   */
  parallel?: number
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

/**
 * `ralph build` (DESIGN.md §16): works the queue in dependency order. Each pending task runs the whole task
 * lifecycle (§6) with its name, notes and criteria in task.md, then VERIFY; the outcome goes through
 * `decideAttempt` and its actions (accept, reject and retry, re-plan, roll back, notify, pause) are carried out
 * here. One task lock is held for the whole build, so no other loop starts between its tasks.
 */
export async function runBuild(input: BuildInput): Promise<BuildResult> {
  const projectDir = checkProjectFolder(input.projectDir)
  const lock = await acquireTaskLock(projectDir, 'ralph build')
  try {
    await initRalphDir(projectDir, { openedFrom: 'the command line (ralph build)' })
    return await new BuildRun({ ...input, projectDir }, lock).run()
  } finally {
    await lock.release()
  }
}

type Finish = { status: BuildStatus; message: string; taskId: string | null; reason?: 'provider' }

class BuildRun {
  private readonly engine: SnapshotEngine
  private readonly mode: BuildMode
  private readonly maxFailures: number
  private readonly budget: BuildBudget
  private readonly now: () => number
  private readonly started: number
  private readonly accepted: string[] = []
  /** Tasks escalated during this build (also recorded in SQLite when the build has the escalations store). */
  private readonly escalatedHere = new Set<string>()
  /** Tasks this build skipped, with why: escalated ones and those that depend on them. */
  private readonly skipped = new Map<string, string>()
  private readonly notifications: string[] = []
  private readonly warned = new Set<BudgetKind>()
  private costUsd = 0

  constructor(
    private readonly input: BuildInput & { projectDir: string },
    private readonly lock: TaskLock,
  ) {
    this.engine = new SnapshotEngine({
      projectDir: input.projectDir,
      index: input.snapshotIndex,
      taskLock: lock,
      logger: input.logger,
    })
    this.mode = input.mode ?? 'hybrid'
    this.maxFailures = input.maxFailures ?? DEFAULT_MAX_FAILURES
    this.budget = input.budget ?? {}
    this.now = input.now ?? Date.now
    this.started = this.now()
  }

  private emit(event: BuildEvent): void {
    this.input.emit(event)
  }

  async run(): Promise<BuildResult> {
    const { projectDir } = this.input
    await this.engine.init()
    if (await planUncommitted(projectDir)) {
      if (this.input.confirmPlanCommit && !(await this.input.confirmPlanCommit())) {
        throw new AppError(
          'cancelled',
          'Build aborted: .ralph/plan.jsonl has changes its history does not hold. Nothing was changed.',
        )
      }
      this.emit({ type: 'build.plan-committed', commit: await commitPlanFile(projectDir) })
    }
    const view = await queryState({ projectDir })
    if (!view.exists || view.spec === null) {
      throw new AppError('invalid-input', nothingToBuild())
    }
    const waiting = view.tasks.filter((t) => t.status === 'done')
    if (waiting.length > 0) {
      throw new AppError('invalid-input', waitingForDecision(waiting.map((t) => t.id)))
    }
    await this.settleEscalations(view.tasks)
    this.emit({
      type: 'build.started',
      mode: this.mode,
      order: view.order,
      budget: { maxCostUsd: this.budget.maxCostUsd ?? null, maxMinutes: this.budget.maxMinutes ?? null },
    })
    const finish = await this.work()
    return this.finish(finish)
  }

  private async work(): Promise<Finish> {
    const { projectDir, signal } = this.input
    for (;;) {
      if (signal.aborted)
        return { status: 'stopped', message: stopWords(signal, 'between tasks'), taskId: null }
      const next = await queryNext({ projectDir })
      if (next.action === 'blocked') return { status: 'failed', message: next.reason, taskId: null }
      const task = next.action === 'build' ? await this.firstRunnable(next.task) : null
      if (task === null) return this.endOfQueue()
      const ended = await this.buildTask(task)
      if (ended?.status !== 'escalated') {
        if (ended) return ended
        continue
      }
      // An escalation waits for a person, but only that task and the tasks that depend on it: the rest of the
      // queue goes on (issue 37).
      this.escalatedHere.add(task.id)
    }
  }

  /**
   * The first task in build order that can run: seed 004's needs_human tasks (escalated, now or in an earlier
   * build) and the tasks waiting on them are skipped, each said once. Null when none is left.
   */
  private async firstRunnable(first: TaskView): Promise<TaskView | null> {
    if (!this.escalationOf(first.id)) return first
    const view = await queryState({ projectDir: this.input.projectDir })
    const byId = new Map(view.tasks.map((t) => [t.id, t]))
    const held = new Set<string>()
    for (const id of view.order) {
      const task = byId.get(id)
      if (!task) continue
      const escalation = this.escalationOf(id)
      const waitsFor = task.deps.filter((d) => held.has(d))
      if (!escalation && waitsFor.length === 0) return task
      held.add(id)
      const reason = escalation
        ? escalation === true
          ? `was escalated in this build and waits for a person. ${escalationHelp(id)}`
          : escalatedReason(id, escalation)
        : `depends on ${waitsFor.join(', ')}, which waits for a person.`
      this.skip(task, reason)
    }
    return null
  }

  /** The open escalation of a task: stored (a QueueEscalation), this build's own (true), or none. */
  private escalationOf(id: string): QueueEscalation | true | null {
    return this.input.escalations?.open(this.input.projectDir, id) ?? (this.escalatedHere.has(id) || null)
  }

  private skip(task: TaskView, reason: string): void {
    if (this.skipped.has(task.id)) return
    this.skipped.set(task.id, `${task.id} "${task.name}" ${reason}`)
    this.emit({ type: 'build.skipped', taskId: task.id, name: task.name, reason })
  }

  /** Nothing left to run: what was built, what was skipped (the build then needs a person), open issues. */
  private async endOfQueue(): Promise<Finish> {
    const n = this.accepted.length
    const built = n
      ? `Built and verified ${n} task${n > 1 ? 's' : ''}: ${this.accepted.join(', ')}.`
      : this.skipped.size
        ? 'Nothing was built.'
        : 'Nothing to build: the queue has no pending task.'
    // Issues are seed 001's INVESTIGATE stage: a person (or `ralph task add`) turns them into tasks.
    const { issues } = await queryState({ projectDir: this.input.projectDir })
    const open = openIssuesNote(issues)
    if (this.skipped.size === 0) return { status: 'complete', message: built + open, taskId: null }
    const skipped = [...this.skipped.values()].join('\n')
    const first = [...this.skipped.keys()][0]!
    return {
      status: 'escalated',
      message: `${built} Skipped ${this.skipped.size} task${this.skipped.size > 1 ? 's' : ''} that wait${this.skipped.size > 1 ? '' : 's'} for a person:\n${skipped}${open}`,
      taskId: first,
    }
  }

  /** Every attempt at one queue task, until it is accepted (null: go on) or the build must stop. */
  private async buildTask(task: TaskView): Promise<Finish | null> {
    const view = await queryState({ projectDir: this.input.projectDir })
    // Failures of earlier builds count: their tombstones are still in the file. A re-plan the user asked for and
    // the failures before a retry do not (they are waived in SQLite).
    const tombstones = view.tombstones.filter((r) => r.id === task.id)
    let attempts: TaskAttempts = freshAttempts(
      this.input.escalations?.countFailures(this.input.projectDir, task.id, tombstones) ?? tombstones.length,
    )
    let feedback = task.reject ? `# An earlier attempt was rejected\n\n${task.reject}\n` : ''
    let firstPre: string | null = null
    for (;;) {
      const overBudget = await this.checkBudget(task.id)
      if (overBudget) return overBudget
      attempts = { ...attempts, attempts: attempts.attempts + 1 }
      const { run, budgetHit } = await this.runAttempt(task, attempts, feedback)
      if (run.task > 0) firstPre ??= preTag(run.task)
      this.costUsd += run.costUsd
      if (budgetHit) return this.budgetStop(budgetHit, task.id)
      const outcome = await this.outcomeOf(task, run, attempts)
      if ('status' in outcome) return outcome
      const decision = decideAttempt(task.id, attempts, outcome, {
        maxFailures: this.maxFailures,
        mode: this.mode,
      })
      attempts = decision.attempts
      const doneAt = run.status === 'complete' ? await this.postCommit(run.task) : null
      const after = await this.carryOut(task, decision.actions, { attempts, doneAt, firstPre, outcome })
      if (after.kind === 'finish') return after.finish
      if (after.kind === 'next') return null
      feedback = after.feedback
    }
  }

  /** One lifecycle run of the task, stopped early when the time budget runs out. */
  private async runAttempt(
    task: TaskView,
    attempts: TaskAttempts,
    feedback: string,
  ): Promise<{ run: RunTaskResult; budgetHit: { kind: BudgetKind; used: number; limit: number } | null }> {
    const { input } = this
    const controller = new AbortController()
    const onAbort = () => controller.abort(input.signal.reason)
    input.signal.addEventListener('abort', onAbort, { once: true })
    if (input.signal.aborted) controller.abort(input.signal.reason)
    let budgetHit: { kind: BudgetKind; used: number; limit: number } | null = null
    let timer: ReturnType<typeof setTimeout> | null = null
    if (this.budget.maxMinutes != null) {
      const left = this.started + this.budget.maxMinutes * 60_000 - this.now()
      timer = setTimeout(
        () => {
          budgetHit = { kind: 'time', used: this.budget.maxMinutes!, limit: this.budget.maxMinutes! }
          controller.abort(new AppError('cancelled', 'The build reached its time budget.'))
        },
        Math.max(0, left),
      )
      timer.unref?.()
    }
    try {
      const run = await runTask({
        projectDir: input.projectDir,
        message: taskMessage(task),
        taskContext: taskContext(task, attempts.attempts),
        feedback,
        model: input.model,
        fastModel: input.fastModel ?? null,
        maxIterations: input.maxIterations,
        ...(input.engine ? { engine: input.engine } : {}),
        signal: controller.signal,
        runs: input.runs,
        projectId: input.projectId,
        snapshotIndex: input.snapshotIndex,
        prices: input.prices,
        contextWindows: input.contextWindows,
        waitForLimits: input.waitForLimits,
        env: input.env,
        taskLock: this.lock,
        keepTaskLock: true,
        mcpServers: input.mcpServers ?? null,
        logger: input.logger,
        newTask: true,
        emit: (event) => {
          if (event.type === 'task.started' && !event.continued) {
            this.emit({
              type: 'build.attempt',
              taskId: task.id,
              name: task.name,
              attempt: attempts.attempts,
              task: event.task,
            })
          }
          this.emit(event)
        },
        onTextDelta: input.onTextDelta,
      })
      return { run, budgetHit }
    } finally {
      if (timer) clearTimeout(timer)
      input.signal.removeEventListener('abort', onAbort)
    }
  }

  /** The attempt's outcome for `decideAttempt`: its verification when it completed. */
  private async outcomeOf(
    task: TaskView,
    run: RunTaskResult,
    attempts: TaskAttempts,
  ): Promise<AttemptOutcome | Finish> {
    if (run.status === 'needs-clarification')
      return { kind: 'needs-clarification', question: run.question ?? run.message }
    // Interrupted (a shutdown): the build stops and the task's run stays resumable from its card.
    if (run.status === 'stopped' || run.status === 'interrupted')
      return {
        kind: 'task-failed',
        reason: 'stopped',
        message: stopWords(this.input.signal, 'inside a task'),
      }
    if (run.status === 'failed')
      return { kind: 'task-failed', reason: run.reason ?? 'error', message: run.message }
    const { input } = this
    const verify = input.verify ?? verifyTask
    try {
      const result = await verify({
        projectDir: input.projectDir,
        task: {
          id: task.id,
          name: task.name,
          ...(task.notes ? { notes: task.notes } : {}),
          accept: task.accept.map((c) => (c.tagged ? `${c.kind}: ${c.text}` : c.text)),
        },
        fromTag: preTag(run.task),
        toTag: postTag(run.task),
        model: input.fastModel ?? input.model,
        signal: input.signal,
        logger: input.logger,
        verdicts: input.verdicts ?? null,
        projectId: input.projectId ?? null,
        runId: run.runId ?? null,
        taskNumber: run.task > 0 ? run.task : null,
        // Verification's calls cost like the task's: llm_usage rows on the attempt's run (its card's cost).
        usage: {
          record: (entry) =>
            input.runs.recordUsage({ ...entry, runId: run.runId ?? null, task: entry.taskNumber }),
        },
        emit: (event) => this.emit(event),
        engine: this.engine,
        env: input.env,
        prices: input.prices,
      })
      this.costUsd += result.costUsd
      if (result.outcome === 'PASS') return { kind: 'verified', outcome: 'PASS' }
      if (result.outcome === 'NEEDS_HUMAN')
        return { kind: 'verified', outcome: 'NEEDS_HUMAN', feedback: result.feedback }
      const failing = result.verdicts.filter((v) => v.answer === 'NO')
      const reason = failing.map((v) => `${v.ref}: ${v.reason}`).join('; ') || 'Verification failed.'
      return {
        kind: 'verified',
        outcome: 'FAIL',
        reason: reason.length > 500 ? `${reason.slice(0, 499)}…` : reason,
        feedback: retryFeedback(task, attempts.failures + 2, this.maxFailures, result.feedback),
      }
    } catch (err) {
      if (input.signal.aborted || isAppError(err, 'cancelled')) {
        return {
          status: 'stopped',
          message: `${stopWords(input.signal, `while ${task.id} was being verified`)}; it stays pending with its work in the project.`,
          taskId: task.id,
        }
      }
      return {
        status: 'failed',
        message: `Verification of ${task.id} could not run: ${(err as Error).message}`,
        taskId: task.id,
      }
    }
  }

  private async postCommit(taskNumber: number): Promise<string | null> {
    const { items } = await this.engine.list({ limit: 1_000_000 })
    return items.find((s) => s.tag === postTag(taskNumber))?.commit ?? null
  }

  private async carryOut(
    task: TaskView,
    actions: BuildAction[],
    ctx: { attempts: TaskAttempts; doneAt: string | null; firstPre: string | null; outcome: AttemptOutcome },
  ): Promise<{ kind: 'finish'; finish: Finish } | { kind: 'next' } | { kind: 'again'; feedback: string }> {
    const { projectDir } = this.input
    const options = { logger: this.input.logger }
    const id = task.id
    const done = () =>
      markTaskDone({ projectDir, id, ...(ctx.doneAt ? { doneAt: ctx.doneAt } : {}), options })
    let rolledBack: { to: string; safetyTag: string | null } | null = null
    for (const action of actions) {
      switch (action.type) {
        case 'accept': {
          await done()
          const r = await acceptTasks({ projectDir, ids: [id], options })
          this.accepted.push(id)
          this.emit({ type: 'build.accepted', taskId: id, commit: r.commit })
          break
        }
        case 'mark-done':
          await done()
          break
        case 'reject': {
          await done()
          const r = await rejectTask({ projectDir, id, reason: action.reason, options })
          this.emit({
            type: 'build.rejected',
            taskId: id,
            reason: action.reason,
            failures: ctx.attempts.failures,
            commit: r.commit,
          })
          break
        }
        case 'retry':
          this.emit({
            type: 'build.retry',
            taskId: id,
            failures: ctx.attempts.failures,
            maxFailures: this.maxFailures,
          })
          return { kind: 'again', feedback: action.feedback }
        case 'replan':
          this.emit({
            type: 'build.replan',
            taskId: id,
            reason: ctx.outcome.kind === 'task-failed' ? ctx.outcome.message : 'stuck',
          })
          return { kind: 'again', feedback: action.feedback }
        case 'rollback': {
          if (!ctx.firstPre) break
          const report = await this.engine.rollback(ctx.firstPre)
          rolledBack = { to: ctx.firstPre, safetyTag: report.safetyTag }
          this.emit({ type: 'build.rollback', taskId: id, to: ctx.firstPre, safetyTag: report.safetyTag })
          break
        }
        case 'escalate':
          this.input.escalations?.escalate({
            projectId: this.input.projectId ?? null,
            projectPath: projectDir,
            taskId: id,
            kind: action.kind,
            message: action.message,
            failures: action.failures,
            rolledBackTo: rolledBack?.to ?? null,
            safetyTag: rolledBack?.safetyTag ?? null,
          })
          break
        case 'notify':
          await this.notify(action.event, id, action.message)
          break
        case 'ask-approval': {
          const approved = this.input.approve ? await this.input.approve(action.message) : null
          if (approved) {
            const r = await acceptTasks({ projectDir, ids: [id], options })
            this.accepted.push(id)
            this.emit({ type: 'build.accepted', taskId: id, commit: r.commit })
            return { kind: 'next' }
          }
          const message = approvalMessage(id, approved)
          await this.notify('approval', id, message)
          return { kind: 'finish', finish: { status: 'paused', message, taskId: id } }
        }
        case 'pause':
          return { kind: 'finish', finish: { status: action.status, message: action.message, taskId: id } }
        case 'stop': {
          const provider =
            ctx.outcome.kind === 'task-failed' &&
            (ctx.outcome.reason === 'provider' || ctx.outcome.reason === 'usage-limit')
          return {
            kind: 'finish',
            finish: {
              status: action.status,
              message: action.message,
              taskId: id,
              ...(provider ? { reason: 'provider' as const } : {}),
            },
          }
        }
        case 'next':
          return { kind: 'next' }
      }
    }
    return { kind: 'next' }
  }

  /**
   * Before the build starts: `--retry` ends its task's escalation; escalations of tasks no longer in plan.jsonl
   * (accepted or cancelled outside the panel) end too, so a reused id never inherits one.
   */
  private async settleEscalations(tasks: readonly TaskView[]): Promise<void> {
    const { escalations, projectDir, retry } = this.input
    if (retry !== undefined) {
      if (!escalations)
        throw new AppError('internal', 'A retry needs the escalations store; none was given to the build.')
      await retryEscalated({ projectDir, escalations, id: retry })
    }
    if (!escalations) return
    const present = new Set(tasks.map((t) => t.id))
    for (const e of escalations.listOpen(projectDir))
      if (!present.has(e.taskId)) escalations.clear(projectDir, e.taskId, 'gone')
  }

  /** Between attempts: warns once per budget at 75%, stops at 100%. */
  private async checkBudget(taskId: string): Promise<Finish | null> {
    const check = checkBudget(
      this.budget,
      { costUsd: this.costUsd, elapsedMs: this.now() - this.started },
      this.warned,
    )
    for (const line of check.warn) {
      this.warned.add(line.kind)
      const message = `The build has used ${describeBudget(line)}; it stops at 100%.`
      this.emit({ type: 'build.budget', level: 'warn', ...line, message })
      await this.notify('budget-warn', null, message)
    }
    return check.stop ? this.budgetStop(check.stop, taskId) : null
  }

  private async budgetStop(
    line: { kind: BudgetKind; used: number; limit: number },
    taskId: string,
  ): Promise<Finish> {
    const message = `The build stopped: it used ${describeBudget(line)}. ${taskId} stays pending; raise the budget to go on.`
    this.emit({ type: 'build.budget', level: 'stop', ...line, message })
    await this.notify('budget-stop', taskId, message)
    return { status: 'budget', message, taskId }
  }

  private async notify(event: NotificationEvent, taskId: string | null, message: string): Promise<void> {
    const n = await writeNotification(
      this.input.projectDir,
      { event, taskId, message, mode: this.mode },
      new Date(this.now()),
    )
    this.notifications.push(n.path)
    this.emit({ type: 'build.notification', event, taskId, path: n.path, message })
    // A host's notification failing must not stop the build.
    attempt(
      this.input.logger,
      `the notification ${n.path} could not be shown`,
      () => this.input.notify?.(n),
      undefined,
    )
  }

  private async finish(finish: Finish): Promise<BuildResult> {
    if (finish.status === 'complete' && this.accepted.length > 0) {
      await this.notify('complete', null, `${finish.message}\n\nCost: $${this.costUsd.toFixed(4)}.`)
    }
    const durationMs = this.now() - this.started
    const costUsd = Math.round(this.costUsd * 1e8) / 1e8
    this.emit({
      type: 'build.finished',
      status: finish.status,
      message: finish.message,
      accepted: [...this.accepted],
      costUsd,
      durationMs,
    })
    return {
      ...finish,
      accepted: [...this.accepted],
      costUsd,
      durationMs,
      notifications: [...this.notifications],
    }
  }
}
