// One iteration run by an agent engine (DESIGN.md §9): a fresh session of the user's Claude Code or Codex given the
// iteration's prompt, its stream turned into the same outcome and callbacks as the built-in loop's iteration, so
// the phase gate, the quality gates, stall detection and the task card do not know which engine ran.
import { AppError, isAppError } from '../../shared/errors'
import {
  ENGINE_CLIS,
  engineAdapter,
  readProjectEngine,
  runEngineSession,
  type EngineId,
  type EngineAdapter,
  type EngineEvent,
  type EngineToolCall,
} from '../engines'
import { UsageLimitError, type BilledUsage, type ModelConfig, type PriceOverrides } from '../llm'
import { canonicalArgs, type ToolContext } from '../tools'
import type { Logger } from '../workspace'
import type { IterationPrompt } from './context'
import { CostCapReached } from './costCap'
import type { IterationOutcome, ToolCallRecord } from './iteration'
import { renderTemplate } from './prompts'
import { iterationSignature } from './stall'

/**
 * The window the iteration prompt is sized against under an engine (half of it at most): the engine manages its
 * own context (it compacts), so this only keeps Ralph's prompt to a size every engine's model takes.
 */
export const ENGINE_PROMPT_WINDOW = 200_000

/** Who runs the iterations: the AI SDK loop with the configured provider, or an agent engine. */
export type IterationRunner =
  | { kind: 'built-in'; model: ModelConfig }
  | { kind: 'engine'; adapter: EngineAdapter; model: string | null }

/** The task's runner; the built-in loop without a provider is the configuration error it always was. */
export function iterationRunner(
  engine: EngineId,
  engineModel: string | null,
  model: ModelConfig | null,
): IterationRunner {
  if (engine !== 'built-in') return { kind: 'engine', adapter: engineAdapter(engine), model: engineModel }
  if (!model) {
    throw new AppError(
      'config',
      'No LLM provider is configured. Run `ralph config set provider …` and `ralph config set model …`, or set ' +
        'RALPH_PROVIDER and RALPH_MODEL (or pick an agent engine: `ralph run --engine claude-code|codex`).',
    )
  }
  return { kind: 'built-in', model }
}

/**
 * The provider's model for a task in this project: required by the built-in loop (its configuration error as it
 * always was); optional under an agent engine, which works without one (the parse then uses its template).
 */
export async function modelForProject(
  projectDir: string,
  modelConfig: () => ModelConfig,
): Promise<ModelConfig | null> {
  const { engine } = await readProjectEngine(projectDir)
  if (engine === 'built-in') return modelConfig()
  try {
    return modelConfig()
  } catch (err) {
    if (isAppError(err, 'config')) return null
    throw err
  }
}

/** When an engine hits a usage limit without saying when it resets: ask again after this long. */
export const UNKNOWN_RESET_WAIT_MS = 15 * 60_000

/** One engine call's usage, as the recorder bills it (the engine's own cost where it reports one). */
export interface EngineUsage {
  model: string
  /** As the recorder bills a call; `reportedCostUsd` where the engine reports its own cost. */
  usage: BilledUsage & { reasoningTokens: number; reportedCostUsd?: number }
  durationMs: number
  /** The session of the iteration it came from (1, 2 … when a usage limit ran it again). */
  session: number
  /**
   * The engine bills this call later, in one total for its session (Claude Code's per-call usage carries cost 0,
   * its `result` the session's cost): the cap must still count it now, at Ralph's price, until that total comes.
   */
  billedLater: boolean
}

export interface EngineIterationInput {
  adapter: EngineAdapter
  /** The project's `engineModel`; null: the engine's default. */
  model: string | null
  prompt: IterationPrompt
  toolCtx: ToolContext & { env?: NodeJS.ProcessEnv }
  maxToolCalls: number
  signal: AbortSignal
  logger: Logger
  /** Absolute paths of the task's attached images. */
  images: string[]
  onTextDelta?: (text: string) => void
  onToolCall?: (call: ToolCallRecord, seq: number) => void
  onUsage?: (usage: EngineUsage) => void
  /** As in the built-in loop: resolves when the limit has reset (the session is run again), rejects to end. */
  waitForLimit?: (limit: UsageLimitError) => Promise<void>
  /** Ralph's own provider settings: the engine's login and base URL when they name its provider. */
  provider?: { id: string; baseUrl: string | null } | null
  /** Which login the session uses and where its model calls go; null when none was found. */
  onLogin?: (description: string | null) => void
  /** Tests only: whose login and configuration are read (default: the user's real home). */
  userHome?: string
  /**
   * The task's cost cap, held by the session's proxy over every model call (engines/proxyMeter.ts): `spentUsd` is
   * read as each session starts.
   */
  costCap?: { capUsd: number; spentUsd(): number; prices?: PriceOverrides }
}

/** What one session came to, before it is an outcome. */
interface SessionFacts {
  calls: ToolCallRecord[]
  text: string
  budgetHit: boolean
  limit: Extract<EngineEvent, { type: 'limit' }> | null
  failure: Extract<EngineEvent, { type: 'failure' }> | null
  done: boolean
  model: string | null
  /** What a callback threw (the cost cap reached): the session stops and the iteration rethrows it. */
  thrown: unknown
  /** This session's number within the iteration. */
  session: number
  /** The engine reported a call's usage in this session. */
  usageSeen: boolean
}

function record(call: EngineToolCall): ToolCallRecord {
  return {
    name: call.name,
    args: call.args,
    canonicalArgs: canonicalArgs(call.name, call.args),
    ok: call.ok,
    output: call.output,
    durationMs: 0,
    changedFiles: call.changedFiles,
    ...(call.outsideSnapshot ? { outsideSnapshot: true } : {}),
  }
}

/** Handles one event; 'stop' when the session must end (the tool budget is spent, a limit or failure said). */
function onEvent(
  input: EngineIterationInput,
  f: SessionFacts,
  event: EngineEvent,
  started: number,
): 'stop' | void {
  switch (event.type) {
    case 'init':
      f.model = event.model ?? f.model
      return
    case 'text':
      f.text += event.text
      input.onTextDelta?.(event.text)
      return
    case 'tool': {
      const rec = record(event.call)
      f.calls.push(rec)
      input.onToolCall?.(rec, f.calls.length)
      if (f.calls.length >= input.maxToolCalls) {
        f.budgetHit = true
        return 'stop'
      }
      return
    }
    case 'usage':
      f.usageSeen = true
      f.model = event.model ?? f.model
      input.onUsage?.({
        model: event.model ?? f.model ?? input.model ?? ENGINE_CLIS[input.adapter.id].label,
        usage: {
          inputTokens: event.inputTokens,
          outputTokens: event.outputTokens,
          cacheReadTokens: event.cacheReadTokens,
          cacheWriteTokens: event.cacheWriteTokens,
          ...(event.cacheWrite1hTokens ? { cacheWrite1hTokens: event.cacheWrite1hTokens } : {}),
          reasoningTokens: event.reasoningTokens,
          ...(event.costUsd === null ? {} : { reportedCostUsd: event.costUsd }),
        },
        durationMs: performance.now() - started,
        session: f.session,
        billedLater: event.costUsd === 0,
      })
      return
    case 'limit':
      f.limit = event
      return 'stop'
    case 'failure':
      f.failure = event
      return 'stop'
    case 'done':
      f.done = true
      if (event.text && !f.text.includes(event.text)) f.text += event.text
      return
    case 'cost-cap':
      // The proxy refused a call, or the calls reached the cap: the task ends at its cap, as the built-in loop's.
      if (!f.usageSeen) recordProxyCalls(input, f, event.calls, started)
      throw new CostCapReached(event.spentUsd, event.capUsd, event.why ?? undefined)
  }
}

/**
 * A session ended at the cap before its engine reported any usage (Codex reports a turn's usage when it ends; a turn
 * a refusal ended reports none): its calls as the proxy read them, priced by Ralph, so the task's receipt has them.
 */
function recordProxyCalls(
  input: EngineIterationInput,
  f: SessionFacts,
  calls: Extract<EngineEvent, { type: 'cost-cap' }>['calls'],
  started: number,
): void {
  for (const call of calls) {
    try {
      input.onUsage?.({
        model: call.model ?? f.model ?? input.model ?? ENGINE_CLIS[input.adapter.id].label,
        usage: { ...call, reasoningTokens: 0 },
        durationMs: performance.now() - started,
        session: f.session,
        billedLater: false,
      })
    } catch (err) {
      // The loop's own check may find the cap reached by them: the task ends at the cap either way.
      if (!(err instanceof CostCapReached)) throw err
    }
  }
}

/** A failure the session reported, as the task's error: which one, and what the user can do. */
export function failureError(adapter: EngineAdapter, failure: SessionFacts['failure'] & object): AppError {
  const cli = ENGINE_CLIS[adapter.id]
  switch (failure.kind) {
    case 'not-logged-in':
      return new AppError('config', `${cli.loginHint} (${cli.label} said: ${failure.message})`)
    case 'version':
      return new AppError(
        'config',
        `${cli.label} cannot run this session: ${failure.message} ${cli.installHint}`,
      )
    case 'provider':
      return new AppError('provider', `${cli.label}'s model call failed: ${failure.message}`)
    case 'crash':
      return new AppError(
        'provider',
        `${cli.label} ended unexpectedly: ${failure.message}. The pre-task snapshot is intact; retry the task, or ` +
          `run \`${cli.binary}\` in a terminal to see what is wrong.`,
      )
  }
}

function limitError(limit: NonNullable<SessionFacts['limit']>): UsageLimitError {
  const now = Date.now()
  const resetAt = limit.resetAt !== null && limit.resetAt > now ? limit.resetAt : now + UNKNOWN_RESET_WAIT_MS
  return new UsageLimitError(resetAt, resetAt - now, limit.message)
}

/**
 * Ralph's instructions for an engine: what the session is told about its own tools standing in for Ralph's and
 * about Ralph's tools on the `ralph` MCP server, then the iteration's system prompt as the built-in loop gets it.
 */
export function engineSystemPrompt(adapter: EngineAdapter, system: string): string {
  return `${renderTemplate('engine', { engine: ENGINE_CLIS[adapter.id].label }).trimEnd()}\n\n${system}`
}

/** One session's facts: the process run, its events folded. */
async function session(
  input: EngineIterationInput,
  number: number,
): Promise<SessionFacts & { completed: boolean }> {
  const facts: SessionFacts = {
    session: number,
    calls: [],
    text: '',
    budgetHit: false,
    limit: null,
    failure: null,
    done: false,
    model: input.model,
    thrown: undefined,
    usageSeen: false,
  }
  const started = performance.now()
  const result = await runEngineSession({
    adapter: input.adapter,
    projectDir: input.toolCtx.projectDir,
    env: input.toolCtx.env ?? process.env,
    spec: {
      system: engineSystemPrompt(input.adapter, input.prompt.system),
      prompt: input.prompt.user,
      model: input.model,
      images: input.images,
    },
    toolCtx: input.toolCtx,
    signal: input.signal,
    logger: input.logger,
    onModel: (model) => (facts.model = model),
    onEvent: (event) => {
      if (facts.thrown !== undefined) return 'stop'
      try {
        return onEvent(input, facts, event, started)
      } catch (err) {
        facts.thrown = err
        return 'stop'
      }
    },
    ...(input.provider ? { provider: input.provider } : {}),
    ...(input.onLogin ? { onLogin: input.onLogin } : {}),
    ...(input.userHome ? { userHome: input.userHome } : {}),
    ...(input.costCap
      ? {
          costCap: {
            capUsd: input.costCap.capUsd,
            spentUsd: input.costCap.spentUsd(),
            ...(input.costCap.prices ? { prices: input.costCap.prices } : {}),
          },
        }
      : {}),
  })
  // First: the cost cap aborts the task's signal as it throws, and its stop must read as the cap, not as the user's.
  if (facts.thrown !== undefined) throw facts.thrown
  if (result.stoppedBy === 'abort') input.signal.throwIfAborted()
  if (result.stoppedBy === 'memory' || result.stoppedBy === 'processes') {
    throw new AppError(
      'provider',
      `${ENGINE_CLIS[input.adapter.id].label} was stopped: it went past the sandbox's ${result.stoppedBy} limit ` +
        `(.ralph/config.json sandbox.limits).`,
    )
  }
  return { ...facts, completed: result.completed }
}

/**
 * Runs iteration's session; a usage limit waits for its reset (when allowed) and runs a fresh session again, as
 * the built-in loop repeats its request. A failure is the task's error; the files stay for the gates to judge.
 */
export async function runEngineIteration(input: EngineIterationInput): Promise<IterationOutcome> {
  for (let number = 1; ; number++) {
    const f = await session(input, number)
    if (f.limit) {
      const err = limitError(f.limit)
      if (!input.waitForLimit) throw err
      await input.waitForLimit(err)
      continue
    }
    if (f.failure) throw failureError(input.adapter, f.failure)
    const completedByTool = f.completed || f.calls.some((c) => c.ok && c.name === 'mark_complete')
    const changed = new Set(f.calls.flatMap((c) => c.changedFiles))
    return {
      signature: iterationSignature(f.calls),
      calls: f.calls,
      completedByTool,
      endedBy: f.budgetHit ? 'budget' : completedByTool ? 'complete' : 'answer',
      changedFiles: [...changed],
      ranCommands: f.calls.some((c) => c.name === 'run_command'),
      text: f.text,
      checkpoint: null,
    }
  }
}
