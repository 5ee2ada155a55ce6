import { join } from 'node:path'
import { mcpCardReport, McpSession, type AppMcpServers } from '../mcp'
import type { TaskOutcome } from '../../shared/api/tasks'
import { AppError, isAppError } from '../../shared/errors'
import type { LoopEvent, TaskReceipt } from '../../shared/loopEvents'
import type { StructuredTask } from '../../shared/task'
import {
  resolveContextWindow,
  type ContextWindowOverrides,
  type ModelConfig,
  type RetryPolicy,
  type PriceOverrides,
  priceFor,
  usageEntry,
  UsageLimitError,
} from '../llm'
import { acquireTaskLock, type TaskLock, SnapshotEngine, type SnapshotIndex } from '../snapshots'
import type { RunsRepo } from '../store'
import { parseTask, renderTaskMarkdown } from '../tasks'
import { runShellCommand, type ToolContext } from '../tools'
import { watchUserRepo } from '../userGit'
import { fallbackTo, initRalphDir, type Logger, checkProjectFolder } from '../workspace'
import { PROGRESS_HEADER, progressSection, type Checkpoint } from './checkpoint'
import { buildIterationPrompt, type IterationPrompt } from './context'
import { ContextBudget } from './contextBudget'
import { listProjectFiles } from './fileList'
import {
  decide,
  initialCounters,
  stallRollbackMessage,
  type FailReason,
  type LoopAction,
  type LoopCounters,
  type LoopPolicy,
} from './decide'
import { runQualityGates } from './gates'
import { runIteration, type IterationOutcome, type ToolCallRecord } from './iteration'
import {
  ENGINE_PROMPT_WINDOW,
  iterationRunner,
  runEngineIteration,
  type IterationRunner,
} from './engineIteration'
import { engineBinary, type EngineId } from '../engines'
import {
  attachmentsDir,
  listAttachments,
  readAttachments,
  resolveSeesImages,
  storeAttachments,
} from '../attachments'
import {
  CostCap,
  CostCapReached,
  nextCallBound,
  nextCallTokenBound,
  TokenCap,
  TokenCapReached,
} from './costCap'
import { checkLimitPolicy, LimitNotWaitedError, waitUntil, type LimitWaitPolicy } from './limitWait'
import {
  beginTask,
  planWithoutStaleMarkers,
  postTag,
  preTag,
  snapshotEvent,
  stripStalePlanMarkers,
} from './lifecycle'
import { checkPlanAtIterationTop, type PlanCheck } from './phaseGate'
import { recoverInterruptedTask } from './crashRecovery'
import { findInterruptedTask, resumeNote, structuredFromTaskMarkdown } from './resume'
import { treeFingerprint } from './progress'
import { RalphState, type LoopConfig } from './ralphState'
import { LoopRecorder } from './recorder'
import { recoveryFeedback } from './recovery'
import { StallDetector } from './stall'
import { abortedByShutdown, type ShutdownAbort } from './shutdown'

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

/** What an interrupted task's card and `ralph run` say: where it stopped and how to go on. */
function interruptedMessage(task: number, iteration: number, why: ShutdownAbort): string {
  const where = iteration > 0 ? ` during iteration ${iteration}` : ' before its first iteration'
  return (
    `Interrupted: Ralph was shut down (${why.why})${where}. Resume continues task ${task} from where it ` +
    `stopped (ralph run --resume, or Resume on its card); the pre-task snapshot ${preTag(task)} is intact.`
  )
}

const isAbort = (err: unknown, signal: AbortSignal) =>
  signal.aborted || isAppError(err, 'cancelled') || (err as Error)?.name === 'AbortError'

/** Whether and how long the task waits for a usage limit: off with `--no-wait` or limitWaitMaxMinutes 0. */
export function limitWaitPolicy(
  waitForLimits: boolean | undefined,
  config: Pick<LoopConfig, 'limitWaitMaxMinutes'>,
): LimitWaitPolicy {
  return {
    enabled: waitForLimits !== false && config.limitWaitMaxMinutes > 0,
    maxWaitMs: config.limitWaitMaxMinutes * 60_000,
    offReason:
      waitForLimits === false
        ? 'waiting is turned off for this run (--no-wait)'
        : 'limitWaitMaxMinutes in .ralph/config.json is 0, which turns waiting off',
  }
}

/** The part of the loop's config that `decide` reads. */
function decidePolicy(config: LoopConfig): LoopPolicy {
  return {
    maxGateFailures: config.maxGateFailures,
    stallThreshold: config.stallThreshold,
    noProgressIterations: config.noProgressIterations,
  }
}

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
    if (input.resume && !(await recoverInterruptedTask(projectDir, input.runs, undefined, input.logger))) {
      await findInterruptedTask(new RalphState(projectDir), input.runs, projectDir)
    }
    // One loop per project at a time, across processes (the CLI and the app may both be open).
    lock ??= await acquireTaskLock(projectDir, 'ralph run')
    await initRalphDir(projectDir, { openedFrom: 'the command line (ralph run)' })
    // Holding the lock, a task still marked running was left by a process that died.
    await recoverInterruptedTask(projectDir, input.runs, lock, input.logger)
    return await new TaskRun({ ...input, projectDir }, lock).run()
  } finally {
    // Only a lock the caller passed in can outlive the task; one taken here is always released.
    if (!(input.keepTaskLock && input.taskLock)) await lock?.release()
  }
}

class TaskRun {
  private readonly state: RalphState
  private readonly engine: SnapshotEngine
  private readonly rec: LoopRecorder
  private iteration = 0
  /** The task's MCP servers while its iterations run. */
  private mcp: McpSession | null = null
  private structured: StructuredTask | null = null
  private readonly costCap: CostCap | null
  private readonly tokenCap: TokenCap | null
  /** Aborted when the cost cap is reached, so a checkpoint request in flight cannot swallow the stop. */
  private readonly capReached = new AbortController()
  /**
   * An engine's calls it bills later (Claude Code prices a session only at its end), at Ralph's price, per
   * "iteration:session" until that session's own total is recorded: the cap counts them as they happen.
   */
  private readonly engineEstimates = new Map<string, number>()

  constructor(
    private readonly input: RunTaskInput & { projectDir: string },
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
    this.costCap = input.maxCostUsd === undefined ? null : new CostCap(input.maxCostUsd)
    this.tokenCap = input.maxTokens === undefined ? null : new TokenCap(input.maxTokens)
  }

  private get task(): number {
    return this.rec.task
  }

  private emit(event: LoopEvent): void {
    this.rec.emit(event)
  }

  async run(): Promise<RunTaskResult> {
    const { input, state } = this
    await this.engine.init()
    const config = await state.config()
    const maxIterations = input.maxIterations ?? config.maxIterations

    const start = input.resume
      ? await this.resumeInterrupted(maxIterations)
      : ((input.newTask ? null : await this.continueWaiting()) ?? (await this.begin()))
    // The user's repository before the model acts, compared when the task ends: a repository this task created, or
    // whose config or hooks it changed, is not trusted to run anything until the user confirms (userGit/trust.ts).
    const userRepo = await watchUserRepo(input.runs.db, input.projectDir, this.task, input.logger)
    let planBaseline = start.planBaseline
    try {
      const engineId = input.engine ?? config.engine
      // A missing engine fails the task before the parse spends a model call.
      if (engineId !== 'built-in') await engineBinary(engineId, input.env ?? process.env)
      const unready = start.firstIteration === 1 ? await input.beforeIterations?.() : null
      if (unready) return await this.fail('error', unready, null)
      if (start.structured) this.structured = start.structured
      else {
        const parsed = await this.parse(start.message, start.lastSummary)
        if (parsed) return parsed
      }
      const runner = iterationRunner(engineId, config.engineModel, input.model)
      const type = this.structured?.type ?? 'fresh'
      // A resumed task did this before it was interrupted: its phase and plan are as it left them.
      if (!start.structured) {
        if (type === 'mutation' || type === 'bugfix') await stripStalePlanMarkers(state, this.task)
        if (type === 'bugfix') await state.setPhase('build') // bug fixes skip the plan update (seed 000 §3)
        if (type !== 'fresh') planBaseline = await state.plan()
      } else if (type !== 'fresh') planBaseline = planWithoutStaleMarkers(planBaseline, this.task)
      const loop = () =>
        this.loop(runner, config, maxIterations, planBaseline, type === 'mutation', {
          firstIteration: start.firstIteration,
        })
      // An engine has its own MCP configuration; Ralph's tools reach it through the engine session.
      return await (runner.kind === 'built-in' ? this.withMcp(loop) : loop())
    } catch (err) {
      if (err instanceof CostCapReached || err instanceof TokenCapReached) return this.stopAtCostCap(err)
      if (isAbort(err, input.signal))
        return this.fail('stopped', 'Stopped by the user. The pre-task snapshot is intact.', null)
      if (err instanceof LimitNotWaitedError || err instanceof UsageLimitError)
        return this.fail('usage-limit', err.message, null)
      if (isAppError(err, 'provider') || isAppError(err, 'config'))
        return this.fail('provider', err.message, null)
      return this.fail('error', (err as Error).message || String(err), null)
    } finally {
      await userRepo.end()
    }
  }

  /**
   * Runs the iterations with the project's MCP servers started (their tools join the model's), and stops them at
   * the end. A server that does not start is a line on the card, never a failed task.
   */
  private async withMcp<T>(work: () => Promise<T>): Promise<T> {
    const { input } = this
    const session = await McpSession.open({
      projectDir: input.projectDir,
      env: input.env ?? process.env,
      logger: input.logger,
      signal: input.signal,
      app: input.mcpServers ?? null,
    })
    session.follow(
      mcpCardReport(input.runs.db, this.rec.runId, (servers) =>
        this.emit({ type: 'mcp.servers', task: this.task, servers }),
      ),
    )
    this.mcp = session
    try {
      return await work()
    } finally {
      this.mcp = null
      await session.close()
    }
  }

  /** A new task: task-N-pre, the cleared state files, and its run row (DESIGN.md §6). */
  private async begin(): Promise<TaskStart> {
    const { input } = this
    const begun = await beginTask(
      this.state,
      this.engine,
      input.message,
      (e) => this.emit(e),
      async (task) => void (await storeAttachments(input.projectDir, task, input.images ?? [])),
    )
    this.rec.runStarted({
      projectId: input.projectId ?? null,
      projectPath: input.recordAs?.projectPath ?? input.projectDir,
      task: begun.task,
      message: input.message,
      lane: input.recordAs?.lane ?? null,
    })
    // Why earlier attempts failed (ralph build), written after beginTask cleared feedback.md.
    if (input.feedback?.trim()) await this.state.write('feedback', `${input.feedback.trim()}\n`)
    return { ...begun, message: input.message, structured: null, firstIteration: 1 }
  }

  /** A task waiting for the user's answer continues with it, keeping its number and pre-task snapshot. */
  private async continueWaiting(): Promise<TaskStart | null> {
    const { input, state } = this
    if ((await state.status()) !== 'waiting') return null
    const counter = await state.taskCounter()
    const waiting = input.runs.latestRun(input.projectDir, counter)
    if (!waiting || waiting.status !== 'waiting') return null
    const message = `${waiting.message}\n\nThe user's answer to the clarification question: ${input.message}`
    this.rec.runContinued(counter, waiting.id, { status: 'running', message })
    this.emit({ type: 'task.started', task: this.task, message: input.message, continued: true })
    await state.setStatus('running')
    // Images sent with the answer join the task's (after its pre-task snapshot, which the task keeps).
    await storeAttachments(input.projectDir, counter, input.images ?? [])
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
    this.iteration = found.lastIteration
    this.rec.runContinued(found.task, found.run.id, { status: 'running', reason: null, endedAt: null })
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
    const pre = await this.engine.show(preTag(this.task), '.ralph/plan.tsx').catch((err: unknown) =>
      // No plan in the snapshot yet: the PLAN phase started from nothing.
      isAppError(err, 'not-found')
        ? null
        : fallbackTo(this.input.logger, `task ${this.task}'s pre-task plan could not be read`, null)(err),
    )
    return pre && !pre.binary ? pre.content.toString('utf8') : ''
  }

  /** Parses the message into task.md; returns a result only when the task must wait for the user. */
  private async parse(message: string, lastSummary: string): Promise<RunTaskResult | null> {
    const { input, state } = this
    const planText = await state.plan()
    const files = await listProjectFiles(input.projectDir, 200)
    const previousTag = this.task > 1 ? postTag(this.task - 1) : null
    const result = await parseTask({
      message,
      context: {
        planExists: planText.trim().length > 0,
        lastSummary,
        fileList: files.files,
        taskNumber: this.task,
        previousTag,
      },
      model: input.fastModel ?? input.model,
      signal: input.signal,
      prices: input.prices,
      usage: { record: (entry) => this.rec.usage({ ...entry, iteration: null }) },
      logger: input.logger,
    })
    this.structured = result.task
    const markdown = renderTaskMarkdown(result.task, {
      taskNumber: this.task,
      previousTag,
      rawMessage: message,
      fallback: result.fallback,
    })
    const extra = input.taskContext?.trim()
    await state.write('task', extra ? `${markdown.trimEnd()}\n\n${extra}\n` : markdown)
    this.rec.runUpdated({ type: result.task.type, title: result.task.title })
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
    this.rec.waitingForAnswer(question, result.task.clarificationOptions)
    return {
      status: 'needs-clarification',
      task: this.task,
      iterations: 0,
      message: question,
      question,
      costUsd: this.rec.cost(),
      runId: this.rec.runId,
    }
  }

  /**
   * The iterations. Each one runs, then its facts go through `decide` (the phase guard, the gates' attempts, stall
   * recovery) and the actions it returns are carried out in order; the first action that ends the task returns.
   */
  private async loop(
    runner: IterationRunner,
    config: LoopConfig,
    maxIterations: number,
    planBaseline: string,
    requireMarkers: boolean,
    { firstIteration }: { firstIteration: number },
  ): Promise<RunTaskResult> {
    const { input, state } = this
    const stall = new StallDetector(config.stallThreshold, config.noProgressIterations)
    // A local server is asked what it runs (Ollama gets exactly this as num_ctx); see resolveContextWindow.
    const budget = new ContextBudget(
      runner.kind === 'built-in'
        ? (await resolveContextWindow(runner.model, input.contextWindows, input.env)).tokens
        : ENGINE_PROMPT_WINDOW,
    )
    const limits = limitWaitPolicy(input.waitForLimits, config)
    const policy = decidePolicy(config)
    let counters = initialCounters
    let fingerprint = await treeFingerprint(input.projectDir)
    // The parse (or, resumed, the task's earlier iterations) may have spent the cap already.
    this.recordCaps()
    this.checkCostCap(null)
    // A cap stops the iteration's tools as well as its model calls.
    const capped = this.costCap !== null || this.tokenCap !== null
    const signal = capped ? AbortSignal.any([input.signal, this.capReached.signal]) : input.signal

    for (let i = firstIteration; i <= maxIterations; i++) {
      input.signal.throwIfAborted()
      this.iteration = i
      await state.setIteration(i)
      const check = await checkPlanAtIterationTop(state, this.task, {
        baseline: planBaseline,
        requireMarkers,
      })
      const { phase, prompt } = await this.beginIteration(i, check, maxIterations, budget)
      const run = { config, phase, prompt, budget, limits, signal }
      const outcome =
        runner.kind === 'built-in'
          ? await this.iterate(i, { ...run, model: runner.model })
          : await this.iterateWithEngine(i, runner, run)
      if (outcome.checkpoint) await this.writeCheckpoint(i, outcome.checkpoint)

      // The three gate sites of seed 002 collapse here: after a batch that completed, after an answer without
      // tools, and at the end of the iteration — each checks status.txt and the phase guard.
      if ((await state.status()) === 'complete') {
        const gated = await this.onCompletion(counters, check, policy, config, i, outcome)
        counters = gated.counters
        if (gated.ended) return gated.ended
      }

      const stalled = await this.checkStall(stall, outcome, fingerprint)
      fingerprint = stalled.fingerprint
      const stallDecision = decide(counters, { kind: 'stall-checked', verdict: stalled.verdict }, policy)
      counters = stallDecision.counters
      for (const action of stallDecision.actions) {
        const ended = await this.act(action, i, outcome)
        if (ended) return ended
        if (action.type === 'recover-stall') stall.reset()
      }
    }
    for (const action of decide(counters, { kind: 'iterations-exhausted', maxIterations }, policy).actions) {
      const ended = await this.act(action, this.iteration, null)
      if (ended) return ended
    }
    throw new Error('The iteration limit must end the task.')
  }

  /** The iteration's start: the phase change the plan check made, its event, and its prompt. */
  private async beginIteration(
    i: number,
    check: PlanCheck,
    maxIterations: number,
    budget: ContextBudget,
  ): Promise<{ phase: Awaited<ReturnType<RalphState['phase']>>; prompt: IterationPrompt }> {
    const { state } = this
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
    this.emit({
      type: 'iteration.started',
      task: this.task,
      iteration: i,
      phase,
      maxIterations,
      ...(this.costCap ? { costCapUsd: this.costCap.capUsd } : {}),
      ...(this.tokenCap ? { tokenCap: this.tokenCap.capTokens } : {}),
    })
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
    return { phase, prompt }
  }

  /** Runs iteration `i` with its tools, recording its row, tool calls and model calls as they happen. */
  private async iterate(
    i: number,
    run: {
      model: ModelConfig
      config: LoopConfig
      phase: string
      prompt: IterationPrompt
      budget: ContextBudget
      limits: LimitWaitPolicy
      signal: AbortSignal
    },
  ): Promise<IterationOutcome> {
    const { input } = this
    const { model, config, prompt, signal } = run
    return this.recordedIteration(i, run.phase, prompt, async (onToolCall) =>
      runIteration({
        model,
        images: await readAttachments(input.projectDir, this.task, input.logger, model),
        seesImages: await resolveSeesImages(model, input.logger),
        logger: input.logger,
        ...(input.fastModel ? { checkpointModel: input.fastModel } : {}),
        prompt,
        maxToolCalls: config.maxToolCallsPerIteration,
        signal,
        ...(this.mcp ? { mcp: this.mcp } : {}),
        ...(this.costCap || this.tokenCap
          ? { callBudget: { maxOutputTokens: (m, tokens) => this.boundCall(m, tokens) } }
          : {}),
        toolCtx: this.toolCtx(config, signal),
        budget: run.budget,
        retry: input.retry,
        waitForLimit: (limit) => this.waitForLimit(limit, run.limits, i),
        onTextDelta: (text) => input.onTextDelta?.(this.task, i, text),
        onRetry: (info) => this.emit({ type: 'llm.retry', task: this.task, iteration: i, ...info }),
        onTurn: (usage) => {
          const used = usage.purpose === 'checkpoint' && input.fastModel ? input.fastModel : model
          this.rec.usage(
            usageEntry({
              purpose: usage.purpose,
              model: used,
              usage,
              durationMs: usage.durationMs,
              taskNumber: this.task,
              iteration: i,
              prices: input.prices,
            }),
          )
          // Called before the answer's tools run: a call that reaches the cap is the task's last.
          this.checkCostCap(i)
        },
        onToolCall,
      }),
    )
  }

  /** The task's tool context for an iteration's work. */
  private toolCtx(config: LoopConfig, signal: AbortSignal): ToolContext {
    const { input } = this
    return {
      projectDir: input.projectDir,
      signal,
      commandTimeoutMs: config.commandTimeoutMs,
      snapshots: this.engine,
      taskNumber: this.task,
      env: input.env,
      logger: input.logger,
    }
  }

  /** One iteration's work with its row recorded: started, each tool call, how it ended (the cost cap too). */
  private async recordedIteration(
    i: number,
    phase: string,
    prompt: IterationPrompt,
    work: (onToolCall: (call: ToolCallRecord, seq: number) => void) => Promise<IterationOutcome>,
  ): Promise<IterationOutcome> {
    const iterationId = this.rec.iterationStarted(i, phase, prompt.tokensEstimate)
    let toolCalls = 0
    const outcome = await work((call, seq) => {
      toolCalls = seq
      this.rec.toolCalled(iterationId, i, seq, call)
    }).catch((err: unknown) => {
      // The cap ends the iteration where it is, and its row says how it ended.
      if (err instanceof CostCapReached || err instanceof TokenCapReached)
        this.rec.iterationEnded(iterationId, i, { signature: '', toolCalls, outcome: 'cost-cap' })
      throw err
    })
    this.rec.iterationEnded(iterationId, i, {
      signature: outcome.signature,
      toolCalls: outcome.calls.length,
      outcome: outcome.endedBy,
    })
    return outcome
  }

  /** Runs iteration `i` as a session of the project's agent engine, recorded like the built-in loop's. */
  private async iterateWithEngine(
    i: number,
    runner: Extract<IterationRunner, { kind: 'engine' }>,
    run: {
      config: LoopConfig
      phase: string
      prompt: IterationPrompt
      limits: LimitWaitPolicy
      signal: AbortSignal
    },
  ): Promise<IterationOutcome> {
    const { input } = this
    // The engine opens the stored files itself (and fits them to its model).
    const images = await listAttachments(input.projectDir, this.task, input.logger)
    return this.recordedIteration(i, run.phase, run.prompt, (onToolCall) =>
      runEngineIteration({
        adapter: runner.adapter,
        model: runner.model,
        prompt: run.prompt,
        maxToolCalls: run.config.maxToolCallsPerIteration,
        signal: run.signal,
        logger: input.logger,
        images: images.map((img) => join(attachmentsDir(input.projectDir, this.task), img.name)),
        toolCtx: this.toolCtx(run.config, run.signal),
        waitForLimit: (limit) => this.waitForLimit(limit, run.limits, i),
        onTextDelta: (text) => input.onTextDelta?.(this.task, i, text),
        provider: input.model ? { id: input.model.provider, baseUrl: input.model.baseUrl ?? null } : null,
        onLogin: (login) => {
          // Kept with the run, so a reloaded card says which login and base URL the session used.
          this.rec.runUpdated({ engineLogin: login })
          this.emit({
            type: 'engine.session',
            task: this.task,
            iteration: i,
            engine: runner.adapter.id,
            login,
          })
        },
        onUsage: ({ model, usage, durationMs, session, billedLater }) => {
          const entry = (billed: typeof usage) =>
            usageEntry({
              purpose: 'iteration',
              // Billed under the engine's id: a card tells an engine's calls from a provider's.
              model: { provider: runner.adapter.id, model },
              usage: billed,
              durationMs,
              taskNumber: this.task,
              iteration: i,
              prices: input.prices,
            })
          this.rec.usage(entry(usage))
          const key = `${i}:${session}`
          if (billedLater) {
            const { reportedCostUsd: _later, ...tokens } = usage
            this.engineEstimates.set(key, (this.engineEstimates.get(key) ?? 0) + entry(tokens).costUsd)
          } else if (usage.reportedCostUsd !== undefined) this.engineEstimates.delete(key)
          this.checkCostCap(i)
        },
        ...(this.costCap
          ? {
              costCap: {
                capUsd: this.costCap.capUsd,
                spentUsd: () => this.spentUsd(),
                ...(input.prices ? { prices: input.prices } : {}),
              },
            }
          : {}),
        onToolCall,
      }),
    )
  }

  /** status.txt says complete: the phase guard, then the quality gates, each decision carried out in order. */
  private async onCompletion(
    counters: LoopCounters,
    check: PlanCheck,
    policy: LoopPolicy,
    config: LoopConfig,
    i: number,
    outcome: IterationOutcome,
  ): Promise<{ counters: LoopCounters; ended: RunTaskResult | null }> {
    const { input, state } = this
    const completion = decide(counters, await this.completionFacts(check), policy)
    for (const action of completion.actions) {
      if (action.type !== 'run-gates') {
        await this.act(action, i, outcome)
        continue
      }
      const results = await runQualityGates({
        state,
        engine: this.engine,
        task: this.task,
        config,
        signal: input.signal,
        runCommand: (command, timeoutMs, signal) =>
          runShellCommand(command, {
            cwd: input.projectDir,
            timeoutMs,
            signal,
            env: input.env,
            logger: input.logger,
          }),
      })
      this.rec.gatesRan(i, counters.gateFailures + 1, results)
      const gated = decide(counters, { kind: 'gates-ran', results }, policy)
      counters = gated.counters
      for (const a of gated.actions) {
        const ended = await this.act(a, i, outcome)
        if (ended) return { counters, ended }
      }
    }
    return { counters, ended: null }
  }

  /** What the phase guard needs to know when status.txt says complete. */
  private async completionFacts(check: PlanCheck) {
    const { state } = this
    const phase = await state.phase()
    const planHasContent = phase === 'build' ? true : (await state.plan()).trim().length > 0
    return { kind: 'completion-signalled' as const, phase, planHasContent, planCheck: check }
  }

  /** Carries out one action of `decide`; returns the task's result when the action ends it. */
  private async act(
    action: LoopAction,
    iteration: number,
    outcome: IterationOutcome | null,
  ): Promise<RunTaskResult | null> {
    const { state } = this
    switch (action.type) {
      case 'run-gates':
        throw new Error('run-gates is carried out by the loop.')
      case 'set-status':
        await state.setStatus(action.status)
        return null
      case 'write-feedback':
        await state.write('feedback', action.text)
        return null
      case 'succeed':
        return this.succeed(iteration)
      case 'fail':
        return this.fail(action.reason, action.message, null)
      case 'recover-stall': {
        const saved = await this.engine.save({
          kind: 'stall-recovery',
          task: this.task,
          message: `stall recovery ${action.recovery}: ${action.why}`,
        })
        this.emit(snapshotEvent(this.task, saved, iteration))
        this.emit({
          type: 'stall.detected',
          task: this.task,
          iteration,
          kind: action.kind,
          recovery: action.recovery,
          action: 'recover',
          message: action.why,
        })
        await state.write(
          'feedback',
          recoveryFeedback({
            task: this.task,
            iteration,
            why: action.why,
            tag: saved.tag,
            plan: await state.plan(),
            calls: outcome?.calls ?? [],
          }),
        )
        return null
      }
      case 'rollback-stall':
        return this.rollbackAndFail(action.kind, action.why, action.recovery)
    }
  }

  /**
   * Progress is what the tools report; only an iteration that ran shell commands and reported no change pays for
   * a fingerprint of the tree. A stale baseline can only make a change look like progress, never a stall.
   */
  private async checkStall(stall: StallDetector, outcome: IterationOutcome, before: string) {
    let fingerprint = before
    let progress = outcome.changedFiles.length > 0
    if (!progress && outcome.ranCommands) {
      fingerprint = await treeFingerprint(this.input.projectDir)
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
    const message = stallRollbackMessage(this.task, recoveries, why, target)
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
    const receipt = this.rec.completed(iteration, summary, postTag(this.task))
    return {
      status: 'complete',
      task: this.task,
      iterations: iteration,
      message: summary,
      costUsd: receipt.costUsd,
      receipt,
      runId: this.rec.runId,
    }
  }

  private async fail(
    reason: FailReason,
    message: string,
    rolledBackTo: string | null,
  ): Promise<RunTaskResult> {
    // A shutdown (Ctrl+C, SIGTERM, the app quitting) is an interruption, not the user's Stop: the task stays
    // resumable, as after a hard kill.
    if (reason === 'stopped' && abortedByShutdown(this.input.signal)) {
      reason = 'interrupted'
      message = interruptedMessage(this.task, this.iteration, this.input.signal.reason as ShutdownAbort)
    }
    const ended = reason === 'interrupted' ? 'interrupted' : 'failed'
    await this.state
      .setStatus(ended)
      .catch(fallbackTo(this.input.logger, `status.txt could not say task ${this.task} ${ended}`, undefined))
    const receipt = this.rec.failed(this.iteration, reason, message, rolledBackTo)
    return {
      status: reason === 'stopped' ? 'stopped' : reason === 'interrupted' ? 'interrupted' : 'failed',
      task: this.task,
      iterations: this.iteration,
      message,
      reason,
      costUsd: receipt?.costUsd ?? 0,
      ...(receipt ? { receipt } : {}),
      ...(this.rec.runId ? { runId: this.rec.runId } : {}),
    }
  }

  /** The task's caps kept with its run: the card shows the spend (or tokens) against them, after a reload too. */
  private recordCaps(): void {
    if (!this.costCap && !this.tokenCap) return
    this.rec.runUpdated({
      ...(this.costCap ? { costCapUsd: this.costCap.capUsd } : {}),
      ...(this.tokenCap ? { tokenCap: this.tokenCap.capTokens } : {}),
    })
  }

  /** The tokens the task's model calls used so far: every prompt token and every answer token. */
  private usedTokens(): number {
    if (!this.rec.runId) return 0
    const cost = this.input.runs.costForRun(this.rec.runId)
    return cost.inputTokens + cost.outputTokens
  }

  /**
   * The task's spend against its caps, after each model call: the warning event the first time it reaches 75% of
   * one, and CostCapReached / TokenCapReached (with the cap's signal aborted) once it reaches 100%.
   */
  private checkCostCap(iteration: number | null): void {
    const at = iteration ? { iteration } : {}
    if (this.costCap) {
      const spentUsd = this.spentUsd()
      const check = this.costCap.check(spentUsd)
      if (check.warn) {
        const capUsd = this.costCap.capUsd
        this.emit({ type: 'budget.warning', task: this.task, ...at, spentUsd, capUsd, message: check.warn })
      }
      if (check.stop) {
        this.capReached.abort()
        throw new CostCapReached(spentUsd, this.costCap.capUsd)
      }
    }
    if (this.tokenCap) {
      const usedTokens = this.usedTokens()
      const capTokens = this.tokenCap.capTokens
      const check = this.tokenCap.check(usedTokens)
      if (check.warn)
        this.emit({
          type: 'budget.warning',
          task: this.task,
          ...at,
          usedTokens,
          capTokens,
          message: check.warn,
        })
      if (check.stop) {
        this.capReached.abort()
        throw new TokenCapReached(usedTokens, capTokens)
      }
    }
  }

  /** The task's spend so far: its recorded calls, and an engine's calls it bills later at Ralph's price. */
  private spentUsd(): number {
    let spentUsd = this.rec.cost()
    for (const estimate of this.engineEstimates.values()) spentUsd += estimate
    return spentUsd
  }

  /**
   * Before each model call under a cap: the answer's max_tokens bounded by what the rest of the cap buys (the
   * tighter of the two caps), and a call refused when its prompt alone would pass a cap (costCap.ts).
   */
  private boundCall(model: ModelConfig, promptTokens: number): number | null {
    let bound: number | null = null
    if (this.costCap) {
      const capUsd = this.costCap.capUsd
      const spentUsd = this.rec.cost()
      const price = priceFor(model.model, this.input.prices)
      const byCost = nextCallBound({ capUsd, spentUsd, promptTokens, price })
      if ('refused' in byCost) {
        this.capReached.abort()
        throw new CostCapReached(spentUsd, capUsd, byCost.refused)
      }
      bound = byCost.maxOutputTokens
    }
    if (this.tokenCap) {
      const usedTokens = this.usedTokens()
      const capTokens = this.tokenCap.capTokens
      const byTokens = nextCallTokenBound({ capTokens, usedTokens, promptTokens })
      if ('refused' in byTokens) {
        this.capReached.abort()
        throw new TokenCapReached(usedTokens, capTokens, byTokens.refused)
      }
      bound = bound === null ? byTokens.maxOutputTokens : Math.min(bound, byTokens.maxOutputTokens)
    }
    return bound
  }

  /** The cap ends the task where it is: no post-task snapshot, task-N-pre untouched, the work so far kept. */
  private async stopAtCostCap(reached: CostCapReached | TokenCapReached): Promise<RunTaskResult> {
    const message =
      `${reached.message} The pre-task snapshot ${preTag(this.task)} is intact and the files keep the work so ` +
      'far: roll back to it, or raise the cap and run the task again.'
    return this.fail('cost-cap', message, null)
  }

  /** Appends the checkpoint to progress.md (the next iteration's prompt shows it) and records it. */
  private async writeCheckpoint(iteration: number, checkpoint: Checkpoint): Promise<void> {
    const existing = await this.state.read('progress')
    const head = existing.trim() ? existing.trimEnd() + '\n\n' : PROGRESS_HEADER(this.task)
    await this.state.write('progress', head + progressSection(iteration, checkpoint))
    this.rec.checkpointWritten(iteration, checkpoint)
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
    const started = Date.now()
    const waitId = this.rec.limitWaitStarted(iteration, limit, started)
    try {
      await waitUntil(limit.resetAt, this.input.signal)
    } catch (err) {
      this.rec.limitWaitCancelled(waitId)
      throw err
    }
    this.rec.limitWaitEnded(waitId, iteration, Date.now() - started)
  }
}
