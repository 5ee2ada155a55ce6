// One iteration's work, by the built-in loop or an agent engine, recorded as it happens: its row, each tool call,
// each model call's usage against the caps, a usage-limit wait, and how it ended.
import { join } from 'node:path'
import { usageEntry, type ModelConfig, type UsageLimitError } from '../llm'
import type { ToolContext } from '../tools'
import { attachmentsDir, listAttachments, readAttachments, resolveSeesImages } from '../attachments'
import type { ContextBudget } from './contextBudget'
import type { IterationPrompt } from './context'
import { CostCapReached, TokenCapReached } from './costCap'
import { runEngineIteration, type IterationRunner } from './engineIteration'
import { runIteration, type IterationOutcome, type ToolCallRecord } from './iteration'
import { checkLimitPolicy, waitUntil, type LimitWaitPolicy } from './limitWait'
import type { LoopConfig } from './ralphState'
import type { TaskRun } from './taskRun'

/** What an iteration runs with, whichever runner does it. */
export interface IterationSetting {
  config: LoopConfig
  phase: string
  prompt: IterationPrompt
  budget: ContextBudget
  limits: LimitWaitPolicy
  /** The task's signal, joined by the caps' when the task has one. */
  signal: AbortSignal
}

/** Runs iteration `i` by the task's runner. */
export function runTaskIteration(
  run: TaskRun,
  i: number,
  runner: IterationRunner,
  setting: IterationSetting,
): Promise<IterationOutcome> {
  return runner.kind === 'built-in'
    ? iterate(run, i, runner.model, setting)
    : iterateWithEngine(run, i, runner, setting)
}

/** Runs iteration `i` with its tools, recording its row, tool calls and model calls as they happen. */
function iterate(
  run: TaskRun,
  i: number,
  model: ModelConfig,
  setting: IterationSetting,
): Promise<IterationOutcome> {
  const { input, caps } = run
  const { config, prompt, signal } = setting
  return recordedIteration(run, i, setting, async (onToolCall) =>
    runIteration({
      model,
      images: await readAttachments(input.projectDir, run.task, input.logger, model),
      seesImages: await resolveSeesImages(model, input.logger),
      logger: input.logger,
      ...(input.fastModel ? { checkpointModel: input.fastModel } : {}),
      prompt,
      maxToolCalls: config.maxToolCallsPerIteration,
      signal,
      ...(run.mcp ? { mcp: run.mcp } : {}),
      ...(caps.capped ? { callBudget: { maxOutputTokens: (m, tokens) => caps.bound(m, tokens) } } : {}),
      toolCtx: toolCtx(run, config, signal),
      budget: setting.budget,
      retry: input.retry,
      waitForLimit: (limit) => waitForLimit(run, limit, setting.limits, i),
      onTextDelta: (text) => input.onTextDelta?.(run.task, i, text),
      onRetry: (info) => run.emit({ type: 'llm.retry', task: run.task, iteration: i, ...info }),
      onTurn: (usage) => {
        const used = usage.purpose === 'checkpoint' && input.fastModel ? input.fastModel : model
        run.rec.usage(
          usageEntry({
            purpose: usage.purpose,
            model: used,
            usage,
            durationMs: usage.durationMs,
            taskNumber: run.task,
            iteration: i,
            prices: input.prices,
          }),
        )
        // Called before the answer's tools run: a call that reaches the cap is the task's last.
        caps.check(i)
      },
      onToolCall,
    }),
  )
}

/** Runs iteration `i` as a session of the project's agent engine, recorded like the built-in loop's. */
async function iterateWithEngine(
  run: TaskRun,
  i: number,
  runner: Extract<IterationRunner, { kind: 'engine' }>,
  setting: IterationSetting,
): Promise<IterationOutcome> {
  const { input, caps } = run
  // The engine opens the stored files itself (and fits them to its model).
  const images = await listAttachments(input.projectDir, run.task, input.logger)
  const costCap = caps.costCapForEngine()
  return recordedIteration(run, i, setting, (onToolCall) =>
    runEngineIteration({
      adapter: runner.adapter,
      model: runner.model,
      prompt: setting.prompt,
      maxToolCalls: setting.config.maxToolCallsPerIteration,
      signal: setting.signal,
      logger: input.logger,
      images: images.map((img) => join(attachmentsDir(input.projectDir, run.task), img.name)),
      toolCtx: toolCtx(run, setting.config, setting.signal),
      waitForLimit: (limit) => waitForLimit(run, limit, setting.limits, i),
      onTextDelta: (text) => input.onTextDelta?.(run.task, i, text),
      provider: input.model ? { id: input.model.provider, baseUrl: input.model.baseUrl ?? null } : null,
      onLogin: (login) => {
        // Kept with the run, so a reloaded card says which login and base URL the session used.
        run.rec.runUpdated({ engineLogin: login })
        run.emit({ type: 'engine.session', task: run.task, iteration: i, engine: runner.adapter.id, login })
      },
      onUsage: ({ model, usage, durationMs, session, billedLater }) => {
        const entry = (billed: typeof usage) =>
          usageEntry({
            purpose: 'iteration',
            // Billed under the engine's id: a card tells an engine's calls from a provider's.
            model: { provider: runner.adapter.id, model },
            usage: billed,
            durationMs,
            taskNumber: run.task,
            iteration: i,
            prices: input.prices,
          })
        run.rec.usage(entry(usage))
        const key = `${i}:${session}`
        if (billedLater) {
          const { reportedCostUsd: _later, ...tokens } = usage
          caps.estimate(key, entry(tokens).costUsd)
        } else if (usage.reportedCostUsd !== undefined) caps.settled(key)
        caps.check(i)
      },
      ...(costCap ? { costCap: { ...costCap, ...(input.prices ? { prices: input.prices } : {}) } } : {}),
      onToolCall,
    }),
  )
}

/** The task's tool context for an iteration's work. */
function toolCtx(run: TaskRun, config: LoopConfig, signal: AbortSignal): ToolContext {
  const { input } = run
  return {
    projectDir: input.projectDir,
    signal,
    commandTimeoutMs: config.commandTimeoutMs,
    snapshots: run.engine,
    taskNumber: run.task,
    env: input.env,
    logger: input.logger,
  }
}

/** One iteration's work with its row recorded: started, each tool call, how it ended (the cost cap too). */
async function recordedIteration(
  run: TaskRun,
  i: number,
  { phase, prompt }: { phase: string; prompt: IterationPrompt },
  work: (onToolCall: (call: ToolCallRecord, seq: number) => void) => Promise<IterationOutcome>,
): Promise<IterationOutcome> {
  const { rec } = run
  const iterationId = rec.iterationStarted(i, phase, prompt.tokensEstimate)
  let toolCalls = 0
  const outcome = await work((call, seq) => {
    toolCalls = seq
    rec.toolCalled(iterationId, i, seq, call)
  }).catch((err: unknown) => {
    // The cap ends the iteration where it is, and its row says how it ended.
    if (err instanceof CostCapReached || err instanceof TokenCapReached)
      rec.iterationEnded(iterationId, i, { signature: '', toolCalls, outcome: 'cost-cap' })
    throw err
  })
  rec.iterationEnded(iterationId, i, {
    signature: outcome.signature,
    toolCalls: outcome.calls.length,
    outcome: outcome.endedBy,
  })
  return outcome
}

/**
 * A usage limit: waits for its reset (the task stays running; the UI shows "waiting for the usage limit" from
 * the event and the open wait in SQLite), then the iteration repeats the same request. Rejects when waiting is
 * off or too long (LimitNotWaitedError) or when the user stops the task (AppError 'cancelled').
 */
async function waitForLimit(
  run: TaskRun,
  limit: UsageLimitError,
  policy: LimitWaitPolicy,
  iteration: number,
): Promise<void> {
  checkLimitPolicy(limit, policy)
  const started = Date.now()
  const waitId = run.rec.limitWaitStarted(iteration, limit, started)
  try {
    await waitUntil(limit.resetAt, run.input.signal)
  } catch (err) {
    run.rec.limitWaitCancelled(waitId)
    throw err
  }
  run.rec.limitWaitEnded(waitId, iteration, Date.now() - started)
}
