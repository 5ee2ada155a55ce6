import { AppError, isAppError } from '../../shared/errors'
import type { QueueEscalation } from '../../shared/api/queue'
import type { TaskView } from '../../shared/queue'
import { abortedByShutdown, preTag, postTag, type RunTaskResult, type ShutdownAbort } from '../loop'
import { acceptTasks, markTaskDone, queryState, rejectTask, commitPlanFile, planUncommitted } from '../queue'
import { SnapshotEngine, type TaskLock } from '../snapshots'
import { verifyTask } from '../verify'
import { attempt } from '../workspace'
import { approvalMessage, nothingToBuild, openIssuesNote, waitingForDecision } from './buildMessages'
import {
  DEFAULT_MAX_FAILURES,
  escalationHelp,
  type AttemptOutcome,
  type BuildAction,
  type BuildMode,
  type NotificationEvent,
  type TaskAttempts,
} from './decide'
import { checkBudget, describeBudget, type BudgetKind, type BuildBudget } from '../../shared/budget'
import type { BuildInput, BuildResult } from './buildInput'
import { escalatedReason, retryEscalated } from './escalations'
import type { BuildEvent, BuildStatus } from './events'
import { writeNotification } from './notifications'
import { judgedCost } from './spend'
import { retryFeedback } from './taskPrompt'

// What the serial build (runBuild.ts) and the lanes build (laneBuild.ts) share: the pre-flight, the verification of
// an attempt, carrying out `decideAttempt`'s actions, budgets, notifications and the end.

/** "Stopped by the user …", or for a shutdown (Ctrl+C, SIGTERM, the app quitting) what shut Ralph down. */
export function stopWords(signal: AbortSignal, where: string): string {
  return abortedByShutdown(signal)
    ? `Interrupted ${where}: ${(signal.reason as ShutdownAbort).message}`
    : `Stopped by the user ${where}.`
}

export type Finish = { status: BuildStatus; message: string; taskId: string | null; reason?: 'provider' }

/** What carrying out a decision's actions leads to. */
export type AfterActions =
  | { kind: 'finish'; finish: Finish }
  | { kind: 'next' }
  | { kind: 'again'; feedback: string }

export type BudgetLine = { kind: BudgetKind; used: number; limit: number }

export abstract class BuildCore {
  protected readonly engine: SnapshotEngine
  protected readonly mode: BuildMode
  protected readonly maxFailures: number
  protected readonly budget: BuildBudget
  protected readonly now: () => number
  protected readonly started: number
  protected readonly accepted: string[] = []
  /** Tasks escalated during this build (also recorded in SQLite when the build has the escalations store). */
  protected readonly escalatedHere = new Set<string>()
  /** Tasks this build skipped, with why: escalated ones and those that depend on them. */
  protected readonly skipped = new Map<string, string>()
  protected readonly notifications: string[] = []
  private readonly warned = new Set<BudgetKind>()
  protected costUsd = 0

  constructor(
    protected readonly input: BuildInput & { projectDir: string },
    protected readonly lock: TaskLock,
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

  protected emit(event: BuildEvent): void {
    this.input.emit(event)
  }

  /** Works the queue once the pre-flight has passed and `build.started` is out. */
  protected abstract work(): Promise<Finish>

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

  /** Why a task escalated now or earlier is not started, as `build.skipped` says it. */
  protected escalatedWhy(id: string, escalation: QueueEscalation | true): string {
    return escalation === true
      ? `was escalated in this build and waits for a person. ${escalationHelp(id)}`
      : escalatedReason(id, escalation)
  }

  /** The open escalation of a task: stored (a QueueEscalation), this build's own (true), or none. */
  protected escalationOf(id: string): QueueEscalation | true | null {
    return this.input.escalations?.open(this.input.projectDir, id) ?? (this.escalatedHere.has(id) || null)
  }

  protected skip(task: TaskView, reason: string): void {
    if (this.skipped.has(task.id)) return
    this.skipped.set(task.id, `${task.id} "${task.name}" ${reason}`)
    this.emit({ type: 'build.skipped', taskId: task.id, name: task.name, reason })
  }

  /** Nothing left to run: what was built, what was skipped (the build then needs a person), open issues. */
  protected async endOfQueue(): Promise<Finish> {
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

  /** How a lifecycle run that did not complete ended, for `decideAttempt`; null for a completed one (verify it). */
  protected runOutcome(run: RunTaskResult): AttemptOutcome | null {
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
    return null
  }

  /**
   * The verification of a completed attempt (its task-N-pre → task-N-post in `where`: the project, or the lane
   * it ran in) as an outcome for `decideAttempt`, or the build's end when it could not run.
   */
  protected async verifyWork(
    task: TaskView,
    run: { task: number; runId?: number },
    attempts: TaskAttempts,
    where: {
      projectDir: string
      engine: SnapshotEngine
      /** The commands' environment when it is not the build's (a lane's adds RALPH_LANE*). */
      env?: NodeJS.ProcessEnv
      onNonce?: (nonce: string) => void
      /** The verification's evidence is gathered: its folder is free while the model judges (VerifyRequest). */
      onGathered?: (nonce: string) => void
    },
  ): Promise<AttemptOutcome | Finish> {
    const { input } = this
    const verify = input.verify ?? verifyTask
    const spent = judgedCost()
    try {
      const result = await verify({
        projectDir: where.projectDir,
        // Verdicts belong to the user's project even when the work is checked in a lane (the Queue reads them).
        recordAs: { projectPath: input.projectDir },
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
        emit: (event) => {
          spent.see(event)
          this.emit(event)
        },
        engine: where.engine,
        env: where.env ?? input.env,
        prices: input.prices,
        ...(where.onGathered ? { onGathered: where.onGathered } : {}),
      })
      this.costUsd += result.costUsd
      where.onNonce?.(result.nonce)
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
      // Stopped or failed midway: the criteria judged so far were paid for.
      this.costUsd += spent.usd()
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

  protected async carryOut(
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
          // Stopped at the question (Ctrl+C in the terminal): the build ends stopped; the task stays done.
          if (this.input.signal.aborted) {
            const message = `${stopWords(this.input.signal, `while asking to accept ${id}`)} ${approvalMessage(id, null)}`
            return { kind: 'finish', finish: { status: 'stopped', message, taskId: id } }
          }
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
  protected async settleEscalations(tasks: readonly TaskView[]): Promise<void> {
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
  protected async checkBudget(taskId: string): Promise<Finish | null> {
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

  protected async budgetStop(
    line: { kind: BudgetKind; used: number; limit: number },
    taskId: string,
  ): Promise<Finish> {
    const message = `The build stopped: it used ${describeBudget(line)}. ${taskId} stays pending; raise the budget to go on.`
    this.emit({ type: 'build.budget', level: 'stop', ...line, message })
    await this.notify('budget-stop', taskId, message)
    return { status: 'budget', message, taskId }
  }

  protected async notify(event: NotificationEvent, taskId: string | null, message: string): Promise<void> {
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

  protected async finish(finish: Finish): Promise<BuildResult> {
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
