import { AppError } from '../../shared/errors'
import type { TaskView } from '../../shared/queue'
import { preTag, postTag, runTask, type RunTaskResult } from '../loop'
import { queryNext, queryState } from '../queue'
import { acquireTaskLock } from '../snapshots'
import { initRalphDir, checkProjectFolder } from '../workspace'
import { discardKept as discardKeptRef, listKept, settleKept, tagLane, type KeptState } from '../lanes'
import { BuildCore, stopWords, type BudgetLine, type Finish } from './buildCore'
import type { BuildInput, BuildResult } from './buildInput'
import type { BuildEvent } from './events'
import { decideAttempt, freshAttempts, type AttemptOutcome, type TaskAttempts } from './decide'
import { LaneBuild } from './laneBuild'
import { taskContext, taskMessage } from './taskPrompt'

export type { BuildInput, BuildResult } from './buildInput'

const keptEvent = (kept: KeptState) => ({
  type: 'build.kept' as const,
  taskId: kept.taskId,
  task: kept.task,
  ref: kept.ref,
})

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
    // More than one lane: laneBuild.ts (DESIGN.md §18); the user's folder and timeline still change one task at a time.
    // A stopped lanes build's kept work of a pending task is resumed as a lanes build resumes it: in a lane (one at
    // a time), never ignored; kept work with no pending task left is discarded by the serial build, saying why.
    const lanes =
      (input.parallel ?? 1) > 1 ||
      (input.workers?.backend ?? 'local') !== 'local' ||
      (input.appDataDir !== undefined && (await keptToSettle(projectDir)).resume.length > 0)
    const build = lanes ? LaneBuild : SerialBuild
    return await new build({ ...input, projectDir }, lock).run()
  } finally {
    await lock.release()
  }
}

/** What the next build does with the work stopped lanes kept (laneKeep.ts): resume it, or discard it and why. */
async function keptToSettle(projectDir: string): Promise<ReturnType<typeof settleKept>> {
  const kept = await listKept(projectDir)
  if (kept.length === 0) return { resume: [], discard: [] }
  const view = await queryState({ projectDir })
  return settleKept(kept, new Set(view.tasks.filter((t) => t.status === 'pending').map((t) => t.id)))
}

/** One task at a time, in the user's folder. */
class SerialBuild extends BuildCore {
  /** `ralph build --json` events carry `lane` (DESIGN.md §18): null, as nothing here runs in a lane. */
  protected override emit(event: BuildEvent): void {
    this.input.emit(tagLane(event, null))
  }

  protected async work(): Promise<Finish> {
    const { projectDir, signal } = this.input
    await this.discardKept()
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
   * Kept work of stopped lanes whose task is no longer pending goes, each said (`build.kept` discarded); kept work
   * of a pending task makes runBuild choose the lanes build, which resumes it. Without the app data folder no lane
   * can be made: that work stays kept for a build that can resume it, and the build says so.
   */
  private async discardKept(): Promise<void> {
    const { resume, discard } = await keptToSettle(this.input.projectDir)
    for (const { kept, reason } of discard) {
      await discardKeptRef(this.input.projectDir, kept)
      this.emit({ ...keptEvent(kept), action: 'discarded', message: reason })
    }
    for (const kept of resume)
      this.emit({
        ...keptEvent(kept),
        action: 'kept',
        message: `${kept.taskId}: the work its stopped lane kept (task ${kept.task}) stays as ${kept.ref}; this build cannot make a lane to resume it (no app data folder), so ${kept.taskId} starts afresh here and a lanes build resumes or discards it.`,
      })
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
        ? this.escalatedWhy(id, escalation)
        : `depends on ${waitsFor.join(', ')}, which waits for a person.`
      this.skip(task, reason)
    }
    return null
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
  ): Promise<{ run: RunTaskResult; budgetHit: BudgetLine | null }> {
    const { input } = this
    const controller = new AbortController()
    const onAbort = () => controller.abort(input.signal.reason)
    input.signal.addEventListener('abort', onAbort, { once: true })
    if (input.signal.aborted) controller.abort(input.signal.reason)
    let budgetHit: BudgetLine | null = null
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
    const ended = this.runOutcome(run)
    if (ended) return ended
    return this.verifyWork(task, run, attempts, { projectDir: this.input.projectDir, engine: this.engine })
  }

  private async postCommit(taskNumber: number): Promise<string | null> {
    return (await this.engine.get(postTag(taskNumber)))?.commit ?? null
  }
}
