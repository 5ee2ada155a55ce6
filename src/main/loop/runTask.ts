import { AppError, isAppError } from '../../shared/errors'
import type { LoopEvent, TaskReceipt } from '../../shared/loopEvents'
import type { StructuredTask } from '../../shared/task'
import { contextWindowFor, type ContextWindowOverrides } from '../llm/contextWindows'
import type { ModelConfig } from '../llm/createModel'
import type { RetryPolicy } from '../llm/modelTurn'
import { estimateCost, type PriceOverrides } from '../llm/pricing'
import { UsageLimitError } from '../llm/usageLimit'
import { acquireTaskLock, type TaskLock } from '../snapshots/taskLock'
import { SnapshotEngine, type SnapshotIndex } from '../snapshots'
import type { RunsRepo } from '../store/runsRepo'
import { parseTask, renderTaskMarkdown } from '../tasks'
import { runShellCommand } from '../tools'
import { initRalphDir } from '../workspace/initRalphDir'
import { checkProjectFolder } from '../workspace/projectFolder'
import { PROGRESS_HEADER, progressSection, type Checkpoint } from './checkpoint'
import { buildIterationPrompt } from './context'
import { ContextBudget } from './contextBudget'
import { listProjectFiles } from './fileList'
import { gateFeedback, runQualityGates } from './gates'
import { runIteration, type IterationOutcome } from './iteration'
import { checkLimitPolicy, LimitNotWaitedError, waitUntil, type LimitWaitPolicy } from './limitWait'
import {
  beginTask,
  planWithoutStaleMarkers,
  postTag,
  preTag,
  snapshotEvent,
  stripStalePlanMarkers,
} from './lifecycle'
import { checkPlanAtIterationTop, shouldRunGates } from './phaseGate'
import { recoverInterruptedTask } from './crashRecovery'
import { findInterruptedTask, resumeNote, structuredFromTaskMarkdown } from './resume'
import { treeFingerprint } from './progress'
import { RalphState } from './ralphState'
import { recoveryFeedback } from './recovery'
import { StallDetector } from './stall'

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
}

export type RunTaskStatus = 'complete' | 'failed' | 'stopped' | 'needs-clarification'

export interface RunTaskResult {
  status: RunTaskStatus
  task: number
  iterations: number
  message: string
  costUsd: number
  question?: string
  reason?: string
  /** Tokens, cost, calls, iterations, checkpoints and limit waits; absent when the task never got a run row. */
  receipt?: TaskReceipt
}

/** Long strings (file contents) are clipped in events; the store keeps the full arguments. */
function clipStrings(value: unknown, max = 2000): unknown {
  if (typeof value === 'string')
    return value.length > max ? `${value.slice(0, max)}… (${value.length} characters)` : value
  if (Array.isArray(value)) return value.map((v) => clipStrings(v, max))
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, clipStrings(v, max)]))
  }
  return value
}

/** How a run begins: a new task, an answered question, or a resumed interruption. */
interface TaskStart {
  /** The request the parser reads (a continued task's includes the answer). */
  message: string
  /** summary.md of the previous task, for the parser. */
  lastSummary: string
  planBaseline: string
  /** A resumed task's parse, kept from before the interruption; null when the task must be parsed. */
  structured: StructuredTask | null
  firstIteration: number
}

type FailReason = Extract<LoopEvent, { type: 'task.failed' }>['reason']

const isAbort = (err: unknown, signal: AbortSignal) =>
  signal.aborted || isAppError(err, 'cancelled') || (err as Error)?.name === 'AbortError'

/**
 * The whole task lifecycle (DESIGN.md §6, seeds 000/002/003): pre-task snapshot, parse, phase-gated fresh-context
 * iterations with tools, quality gates, stall recovery, and the post-task snapshot only when every gate passes.
 */
export async function runTask(input: RunTaskInput): Promise<RunTaskResult> {
  let lock = input.taskLock
  try {
    const projectDir = checkProjectFolder(input.projectDir)
    // A resume with nothing interrupted is refused before anything is written (not even the lock file). A live
    // task elsewhere is left to the lock, which says so.
    if (input.resume && !(await recoverInterruptedTask(projectDir, input.runs))) {
      await findInterruptedTask(new RalphState(projectDir), input.runs, projectDir)
    }
    // One loop per project at a time, across processes (the CLI and the app may both be open).
    lock ??= await acquireTaskLock(projectDir, 'ralph run')
    await initRalphDir(projectDir, { openedFrom: 'the command line (ralph run)' })
    // Holding the lock, a task still marked running was left by a process that died.
    await recoverInterruptedTask(projectDir, input.runs, lock)
    return await new TaskRun({ ...input, projectDir }, lock).run()
  } finally {
    await lock?.release()
  }
}

class TaskRun {
  private readonly state: RalphState
  private readonly engine: SnapshotEngine
  private task = 0
  private runId = 0
  private iteration = 0
  private structured: StructuredTask | null = null

  constructor(
    private readonly input: RunTaskInput & { projectDir: string },
    taskLock: TaskLock,
  ) {
    this.state = new RalphState(input.projectDir)
    this.engine = new SnapshotEngine({ projectDir: input.projectDir, index: input.snapshotIndex, taskLock })
  }

  private emit(event: LoopEvent): void {
    this.input.emit(event)
  }

  async run(): Promise<RunTaskResult> {
    const { input, state } = this
    await this.engine.init()
    const config = await state.config()
    const maxIterations = input.maxIterations ?? config.maxIterations

    const start = input.resume
      ? await this.resumeInterrupted(maxIterations)
      : ((await this.continueWaiting()) ?? (await this.begin()))
    let planBaseline = start.planBaseline
    try {
      if (start.structured) this.structured = start.structured
      else {
        const parsed = await this.parse(start.message, start.lastSummary)
        if (parsed) return parsed
      }
      if (!input.model) {
        throw new AppError(
          'config',
          'No LLM provider is configured. Run `ralph config set provider …` and `ralph config set model …`, or set RALPH_PROVIDER and RALPH_MODEL.',
        )
      }
      const type = this.structured?.type ?? 'fresh'
      // A resumed task did this before it was interrupted: its phase and plan are as it left them.
      if (!start.structured) {
        if (type === 'mutation' || type === 'bugfix') await stripStalePlanMarkers(state, this.task)
        if (type === 'bugfix') await state.setPhase('build') // bug fixes skip the plan update (seed 000 §3)
        if (type !== 'fresh') planBaseline = await state.plan()
      } else if (type !== 'fresh') planBaseline = planWithoutStaleMarkers(planBaseline, this.task)
      return await this.loop(input.model, config, maxIterations, planBaseline, type === 'mutation', {
        firstIteration: start.firstIteration,
      })
    } catch (err) {
      if (isAbort(err, input.signal))
        return this.fail('stopped', 'Stopped by the user. The pre-task snapshot is intact.', null)
      if (err instanceof LimitNotWaitedError || err instanceof UsageLimitError)
        return this.fail('usage-limit', err.message, null)
      if (isAppError(err, 'provider') || isAppError(err, 'config'))
        return this.fail('provider', err.message, null)
      return this.fail('error', (err as Error).message || String(err), null)
    }
  }

  /** A new task: task-N-pre, the cleared state files, and its run row (DESIGN.md §6). */
  private async begin(): Promise<TaskStart> {
    const { input } = this
    const begun = await beginTask(this.state, this.engine, input.message, (e) => this.emit(e))
    this.task = begun.task
    this.runId = input.runs.startRun({
      projectId: input.projectId ?? null,
      projectPath: input.projectDir,
      task: this.task,
      message: input.message,
    })
    return { ...begun, message: input.message, structured: null, firstIteration: 1 }
  }

  /** A task waiting for the user's answer continues with it, keeping its number and pre-task snapshot. */
  private async continueWaiting(): Promise<TaskStart | null> {
    const { input, state } = this
    if ((await state.status()) !== 'waiting') return null
    const counter = await state.taskCounter()
    const waiting = input.runs.latestRun(input.projectDir, counter)
    if (!waiting || waiting.status !== 'waiting') return null
    this.task = counter
    this.runId = waiting.id
    const message = `${waiting.message}\n\nThe user's answer to the clarification question: ${input.message}`
    input.runs.updateRun(this.runId, { status: 'running', message })
    this.emit({ type: 'task.started', task: this.task, message: input.message, continued: true })
    await state.setStatus('running')
    return {
      message,
      lastSummary: '',
      planBaseline: await this.prePlan(),
      structured: null,
      firstIteration: 1,
    }
  }

  /**
   * An interrupted task goes on where it stopped: its number, pre-task snapshot, run row, request and parse stay;
   * progress.md and task.md are the next iteration's context as usual. Refused before anything changes.
   */
  private async resumeInterrupted(maxIterations: number): Promise<TaskStart> {
    const { input, state } = this
    const found = await findInterruptedTask(state, input.runs, input.projectDir)
    if (found.lastIteration >= maxIterations) {
      throw new AppError(
        'invalid-input',
        `Task ${found.task} was interrupted in iteration ${found.lastIteration}, its last of ${maxIterations}: ` +
          `resuming needs more. Pass --max-iterations ${found.lastIteration + 10} (or raise maxIterations in .ralph/config.json).`,
      )
    }
    this.task = found.task
    this.runId = found.run.id
    this.iteration = found.lastIteration
    input.runs.updateRun(this.runId, { status: 'running', reason: null, endedAt: null })
    this.emit({ type: 'task.started', task: this.task, message: found.run.message, continued: true })
    await state.setStatus('running')
    const feedback = (await state.read('feedback')).trim()
    const note = resumeNote(this.task, found.lastIteration)
    await state.write('feedback', feedback ? `${note}\n${feedback}\n` : note)
    return {
      message: found.run.message,
      lastSummary: '',
      planBaseline: await this.prePlan(),
      structured: structuredFromTaskMarkdown(await state.read('task'), found.run),
      firstIteration: found.lastIteration + 1,
    }
  }

  /** plan.tsx as the task's pre-task snapshot holds it: where a continued task's PLAN phase started. */
  private async prePlan(): Promise<string> {
    const pre = await this.engine.show(preTag(this.task), '.ralph/plan.tsx').catch(() => null)
    return pre && !pre.binary ? pre.content.toString('utf8') : ''
  }

  /** Parses the message into task.md; returns a result only when the task must wait for the user. */
  private async parse(message: string, lastSummary: string): Promise<RunTaskResult | null> {
    const { input, state } = this
    const planText = await state.plan()
    const files = await listProjectFiles(input.projectDir, 200)
    const previousTag = this.task > 1 ? `task-${this.task - 1}-post` : null
    const result = await parseTask({
      message,
      context: {
        planExists: planText.trim().length > 0,
        lastSummary,
        fileList: files.files,
        taskNumber: this.task,
        previousTag,
      },
      model: input.model,
      signal: input.signal,
      prices: input.prices,
      usage: {
        record: (entry) =>
          input.runs.recordUsage({ ...entry, runId: this.runId, task: this.task, iteration: null }),
      },
    })
    this.structured = result.task
    await state.write(
      'task',
      renderTaskMarkdown(result.task, {
        taskNumber: this.task,
        previousTag,
        rawMessage: message,
        fallback: result.fallback,
      }),
    )
    input.runs.updateRun(this.runId, { type: result.task.type, title: result.task.title })
    this.emit({
      type: 'task.parsed',
      task: this.task,
      parsed: result.task,
      fallback: result.fallback,
      reason: result.reason,
    })
    if (result.task.type !== 'needs-clarification') return null
    const question = result.task.clarification ?? 'Could you say more precisely what you want?'
    await state.setStatus('waiting')
    input.runs.updateRun(this.runId, { status: 'waiting' })
    this.emit({ type: 'clarification.needed', task: this.task, question })
    return {
      status: 'needs-clarification',
      task: this.task,
      iterations: 0,
      message: question,
      question,
      costUsd: this.cost(),
    }
  }

  private async loop(
    model: ModelConfig,
    config: Awaited<ReturnType<RalphState['config']>>,
    maxIterations: number,
    planBaseline: string,
    requireMarkers: boolean,
    { firstIteration }: { firstIteration: number },
  ): Promise<RunTaskResult> {
    const { input, state } = this
    const stall = new StallDetector(config.stallThreshold, config.noProgressIterations)
    const budget = new ContextBudget(contextWindowFor(model.model, input.contextWindows).tokens)
    const limits: LimitWaitPolicy = {
      enabled: input.waitForLimits !== false && config.limitWaitMaxMinutes > 0,
      maxWaitMs: config.limitWaitMaxMinutes * 60_000,
      offReason:
        input.waitForLimits === false
          ? 'waiting is turned off for this run (--no-wait)'
          : 'limitWaitMaxMinutes in .ralph/config.json is 0, which turns waiting off',
    }
    let recoveries = 0
    let gateFailures = 0
    let fingerprint = treeFingerprint(input.projectDir)

    for (let i = firstIteration; i <= maxIterations; i++) {
      input.signal.throwIfAborted()
      this.iteration = i
      await state.setIteration(i)
      const check = await checkPlanAtIterationTop(state, this.task, {
        baseline: planBaseline,
        requireMarkers,
      })
      if (check.kind === 'flipped') {
        this.emit({
          type: 'phase.changed',
          task: this.task,
          iteration: i,
          from: 'plan',
          to: 'build',
          reason: 'plan.tsx validated',
        })
      }
      const phase = await state.phase()
      this.emit({ type: 'iteration.started', task: this.task, iteration: i, phase, maxIterations })
      const prompt = await buildIterationPrompt({
        state,
        taskNumber: this.task,
        task: this.structured,
        phase,
        iteration: i,
        maxIterations,
        // Half the window at most, so the iteration has room to work before its checkpoint.
        maxTokens: Math.floor(budget.window / 2),
      })
      const iterationId = input.runs.startIteration(this.runId, i, phase, prompt.tokensEstimate)

      const outcome = await runIteration({
        model,
        prompt,
        maxToolCalls: config.maxToolCallsPerIteration,
        signal: input.signal,
        toolCtx: {
          projectDir: input.projectDir,
          signal: input.signal,
          commandTimeoutMs: config.commandTimeoutMs,
          snapshots: this.engine,
          taskNumber: this.task,
          env: input.env,
        },
        budget,
        retry: input.retry,
        waitForLimit: (limit) => this.waitForLimit(limit, limits, i),
        onTextDelta: (text) => input.onTextDelta?.(this.task, i, text),
        onRetry: (info) => this.emit({ type: 'llm.retry', task: this.task, iteration: i, ...info }),
        onTurn: (usage) => {
          const cost = estimateCost(model.model, usage, input.prices)
          input.runs.recordUsage({
            runId: this.runId,
            task: this.task,
            iteration: i,
            purpose: usage.purpose,
            provider: model.provider,
            model: model.model,
            inputTokens: usage.inputTokens,
            outputTokens: usage.outputTokens,
            durationMs: usage.durationMs,
            costUsd: cost.usd,
          })
        },
        onToolCall: (call, seq) => {
          input.runs.recordToolCall(iterationId, seq, {
            name: call.name,
            argsJson: call.canonicalArgs,
            ok: call.ok,
            resultBytes: Buffer.byteLength(call.output),
            durationMs: call.durationMs,
            error: call.ok ? null : call.output.slice(0, 500),
          })
          this.emit({
            type: 'tool.called',
            task: this.task,
            iteration: i,
            name: call.name,
            args: clipStrings(call.args),
            ok: call.ok,
            summary: call.output.split('\n')[0]!.slice(0, 200),
            durationMs: Math.round(call.durationMs),
          })
        },
      })
      input.runs.endIteration(iterationId, {
        signature: outcome.signature,
        toolCalls: outcome.calls.length,
        outcome: outcome.endedBy,
      })
      input.runs.updateRun(this.runId, { iterations: i })
      if (outcome.checkpoint) await this.writeCheckpoint(i, outcome.checkpoint)

      // The three gate sites of seed 002 collapse here: after a batch that completed, after an answer without
      // tools, and at the end of the iteration — each checks status.txt and the phase guard.
      if ((await state.status()) === 'complete') {
        if (await shouldRunGates(state)) {
          const results = await runQualityGates({
            state,
            engine: this.engine,
            task: this.task,
            config,
            signal: input.signal,
            runCommand: (command, timeoutMs, signal) =>
              runShellCommand(command, { cwd: input.projectDir, timeoutMs, signal, env: input.env }),
          })
          const failed = results.some((r) => r.severity === 'failure')
          const attempt = gateFailures + 1
          for (const r of results) {
            input.runs.recordGate(this.runId, i, attempt, r)
            this.emit({
              type: 'gate.result',
              task: this.task,
              iteration: i,
              gate: r.gate,
              severity: r.severity,
              message: r.message,
              attempt,
            })
          }
          if (!failed) return this.succeed(i)
          gateFailures++
          await state.write('feedback', gateFeedback(results, gateFailures, config.maxGateFailures))
          await state.setStatus('running')
          if (gateFailures >= config.maxGateFailures) {
            const first = results.find((r) => r.severity === 'failure')!
            return this.fail(
              'gates',
              `Quality gates failed ${gateFailures} times in a row; last: [${first.gate}] ${first.message}`,
              null,
            )
          }
        } else {
          const feedback =
            check.kind === 'unchanged'
              ? check.feedback
              : '# Plan phase\n\nYou signalled completion while the task is still in the PLAN phase. The harness validates .ralph/plan.tsx at the start of the next iteration; build once it says "Plan Validated".\n'
          await state.write('feedback', feedback)
        }
      }

      const stalled = this.checkStall(stall, outcome, fingerprint)
      fingerprint = stalled.fingerprint
      if (stalled.verdict !== 'ok') {
        recoveries++
        const why =
          stalled.verdict === 'repeat'
            ? `the last ${config.stallThreshold} iterations made exactly the same tool calls`
            : `no file changed in the last ${config.noProgressIterations} iterations`
        if (recoveries >= 2) return this.rollbackAndFail(stalled.verdict, why, recoveries)
        const saved = await this.engine.save({
          kind: 'stall-recovery',
          task: this.task,
          message: `stall recovery ${recoveries}: ${why}`,
        })
        this.emit(snapshotEvent(this.task, saved, i))
        this.emit({
          type: 'stall.detected',
          task: this.task,
          iteration: i,
          kind: stalled.verdict,
          recovery: recoveries,
          action: 'recover',
          message: why,
        })
        await state.write(
          'feedback',
          recoveryFeedback({
            task: this.task,
            iteration: i,
            why,
            tag: saved.tag,
            plan: await state.plan(),
            calls: outcome.calls,
          }),
        )
        stall.reset()
      }
    }
    await state.setStatus('failed')
    return this.fail('max-iterations', `The task did not complete within ${maxIterations} iterations.`, null)
  }

  /**
   * Progress is what the tools report; only an iteration that ran shell commands and reported no change pays for
   * a fingerprint of the tree. A stale baseline can only make a change look like progress, never a stall.
   */
  private checkStall(stall: StallDetector, outcome: IterationOutcome, before: string) {
    let fingerprint = before
    let progress = outcome.changedFiles.length > 0
    if (!progress && outcome.ranCommands) {
      fingerprint = treeFingerprint(this.input.projectDir)
      progress = fingerprint !== before
    }
    const verdict = stall.record(outcome.signature, progress)
    return { verdict: verdict.kind, fingerprint }
  }

  private async rollbackAndFail(
    kind: 'repeat' | 'no-progress',
    why: string,
    recoveries: number,
  ): Promise<RunTaskResult> {
    const target = preTag(this.task)
    this.emit({
      type: 'stall.detected',
      task: this.task,
      iteration: this.iteration,
      kind,
      recovery: recoveries,
      action: 'rollback',
      message: why,
    })
    await this.engine.rollback(target)
    const message = `Task ${this.task} failed after ${recoveries} stall recoveries (${why}). The project was rolled back to ${target}; "ralph snapshot undo" brings the abandoned work back. Consider simplifying the task or splitting it into smaller requests.`
    await this.state.setStatus('failed')
    await this.state.write('feedback', `${message}\n`)
    return this.fail(kind === 'repeat' ? 'stall' : 'no-progress', message, target)
  }

  private async succeed(iteration: number): Promise<RunTaskResult> {
    // summary.md starts with a "# Summary" heading; the event carries the words, not the heading.
    const summary = (await this.state.read('summary')).replace(/^#[^\n]*\n+/, '').trim()
    const saved = await this.engine.save({
      kind: 'task-post',
      task: this.task,
      message: `task ${this.task}: ${summary.split('\n')[0]?.slice(0, 72) ?? ''}`,
    })
    this.emit(snapshotEvent(this.task, saved, iteration))
    this.input.runs.updateRun(this.runId, { status: 'complete', endedAt: Date.now(), iterations: iteration })
    const receipt = this.receipt(iteration)
    this.emit({
      type: 'task.completed',
      task: this.task,
      iteration,
      summary,
      iterations: iteration,
      postTag: postTag(this.task),
      costUsd: receipt.costUsd,
      receipt,
    })
    return {
      status: 'complete',
      task: this.task,
      iterations: iteration,
      message: summary,
      costUsd: receipt.costUsd,
      receipt,
    }
  }

  private async fail(
    reason: FailReason,
    message: string,
    rolledBackTo: string | null,
  ): Promise<RunTaskResult> {
    await this.state.setStatus('failed').catch(() => undefined)
    const stopped = reason === 'stopped'
    this.input.runs.updateRun(this.runId, {
      status: stopped ? 'stopped' : 'failed',
      reason,
      detail: message,
      endedAt: Date.now(),
      iterations: this.iteration,
    })
    const receipt = this.runId ? this.receipt(this.iteration) : undefined
    this.emit({
      type: 'task.failed',
      task: this.task,
      ...(this.iteration ? { iteration: this.iteration } : {}),
      reason,
      message,
      iterations: this.iteration,
      rolledBackTo,
      ...(receipt ? { receipt } : {}),
    })
    return {
      status: stopped ? 'stopped' : 'failed',
      task: this.task,
      iterations: this.iteration,
      message,
      reason,
      costUsd: receipt?.costUsd ?? 0,
      ...(receipt ? { receipt } : {}),
    }
  }

  private cost(): number {
    return this.runId ? this.input.runs.costForRun(this.runId).usd : 0
  }

  /** Sums the run's recorded calls, checkpoints and waits, and keeps the result with the run. */
  private receipt(iterations: number): TaskReceipt {
    const receipt = this.input.runs.receiptFor(this.runId, iterations)
    this.input.runs.saveReceipt(this.runId, receipt)
    return receipt
  }

  /** Appends the checkpoint to progress.md (the next iteration's prompt shows it) and records it. */
  private async writeCheckpoint(iteration: number, checkpoint: Checkpoint): Promise<void> {
    const existing = await this.state.read('progress')
    const head = existing.trim() ? existing.trimEnd() + '\n\n' : PROGRESS_HEADER(this.task)
    await this.state.write('progress', head + progressSection(iteration, checkpoint))
    this.input.runs.recordCheckpoint(this.runId, { iteration, ...checkpoint })
    this.emit({
      type: 'checkpoint.written',
      task: this.task,
      iteration,
      reason: checkpoint.reason,
      by: checkpoint.by,
      usedTokens: checkpoint.usedTokens,
      windowTokens: checkpoint.windowTokens,
      text: checkpoint.text,
    })
  }

  /**
   * A usage limit: waits for its reset (the task stays running; the UI shows "waiting for the usage limit" from
   * the event and the open wait in SQLite), then the iteration repeats the same request. Rejects when waiting is
   * off or too long (LimitNotWaitedError) or when the user stops the task (AppError 'cancelled').
   */
  private async waitForLimit(
    limit: UsageLimitError,
    policy: LimitWaitPolicy,
    iteration: number,
  ): Promise<void> {
    checkLimitPolicy(limit, policy)
    const { runs, signal } = this.input
    const started = Date.now()
    const waitId = runs.startLimitWait(this.runId, iteration, limit.resetAt, started)
    this.emit({
      type: 'limit.waiting',
      task: this.task,
      iteration,
      resetAt: new Date(limit.resetAt).toISOString(),
      waitMs: limit.waitMs,
      message: limit.message,
    })
    try {
      await waitUntil(limit.resetAt, signal)
    } catch (err) {
      runs.endLimitWait(waitId, 'cancelled')
      throw err
    }
    runs.endLimitWait(waitId, 'resumed')
    this.emit({ type: 'limit.resumed', task: this.task, iteration, waitedMs: Date.now() - started })
  }
}
