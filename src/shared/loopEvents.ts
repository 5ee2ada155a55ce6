import { z } from 'zod'
import { structuredTaskSchema } from './task'

/**
 * The loop's progress events. Their `type` names are the NDJSON contract of `ralph run --json` (DESIGN.md §10)
 * and travel to the UI inside the contract event `loop.event`. Every event carries the task number, and the
 * iteration where there is one.
 */
const base = { task: z.number().int().positive(), iteration: z.number().int().nonnegative().optional() }

const gateSeverity = z.enum(['pass', 'warning', 'failure'])

/**
 * What a task cost, summed over all its LLM calls and iterations (kept in SQLite with its run). `calls` counts
 * requests the provider answered; a refused one (a 429) costs nothing and is not counted.
 */
export const taskReceiptSchema = z.object({
  /** All prompt tokens, the cache reads and writes below included. */
  inputTokens: z.number().int().nonnegative(),
  outputTokens: z.number().int().nonnegative(),
  /** Of `inputTokens`: served from the provider's prompt cache (billed at its cache-read rate). Absent: none. */
  cacheReadTokens: z.number().int().nonnegative().optional(),
  /** Of `inputTokens`: written to the prompt cache (Anthropic bills these above the input rate). Absent: none. */
  cacheWriteTokens: z.number().int().nonnegative().optional(),
  costUsd: z.number().nonnegative(),
  calls: z.number().int().nonnegative(),
  iterations: z.number().int().nonnegative(),
  checkpoints: z.number().int().nonnegative(),
  limitWaits: z.number().int().nonnegative(),
  limitWaitMs: z.number().nonnegative(),
  /**
   * The spend per model (the main model and the fast one for side jobs), in the order each was first used.
   * `costSource` 'provider': the provider reported the cost (OpenRouter); 'catalog': estimated from its rates.
   */
  models: z
    .array(
      z.object({
        provider: z.string(),
        model: z.string(),
        calls: z.number().int().nonnegative(),
        inputTokens: z.number().int().nonnegative(),
        outputTokens: z.number().int().nonnegative(),
        costUsd: z.number().nonnegative(),
        costSource: z.enum(['provider', 'catalog']).optional(),
      }),
    )
    .optional(),
})
export type TaskReceipt = z.infer<typeof taskReceiptSchema>

/** Why a task failed (`task.failed`'s reason). */
export const taskFailReason = z.enum([
  'gates',
  'stall',
  'no-progress',
  'max-iterations',
  'provider',
  'usage-limit',
  'cost-cap',
  'stopped',
  // Ralph was shut down mid-task (Ctrl+C, SIGTERM, the app quitting): resumable, as after a hard kill.
  'interrupted',
  'error',
])

export const loopEventSchema = z.discriminatedUnion('type', [
  z.object({ ...base, type: z.literal('task.started'), message: z.string(), continued: z.boolean() }),
  z.object({
    ...base,
    type: z.literal('snapshot.created'),
    tag: z.string(),
    kind: z.string(),
    commit: z.string(),
    added: z.number(),
    modified: z.number(),
    deleted: z.number(),
    durationMs: z.number(),
  }),
  z.object({
    ...base,
    type: z.literal('task.parsed'),
    parsed: structuredTaskSchema,
    fallback: z.boolean(),
    reason: z.string().nullable(),
  }),
  z.object({
    ...base,
    type: z.literal('clarification.needed'),
    question: z.string(),
    /** Answers the question offers, for quick replies (absent: none). */
    options: z.array(z.string()).optional(),
  }),
  z.object({
    ...base,
    type: z.literal('iteration.started'),
    phase: z.enum(['plan', 'build']),
    maxIterations: z.number(),
    /** The task's cost cap in dollars (`ralph run --max-cost`, the composer's cap); absent: no cap. */
    costCapUsd: z.number().positive().optional(),
    /** The task's token cap (the composer's, for a model with no price); absent: no token cap. */
    tokenCap: z.number().int().positive().optional(),
  }),
  z.object({ ...base, type: z.literal('llm.delta'), text: z.string() }),
  z.object({
    ...base,
    type: z.literal('engine.session'),
    engine: z.enum(['claude-code', 'codex']),
    /**
     * Which login the session's model calls use and where they go (`OPENAI_API_KEY → https://gateway/v1`), through
     * Ralph's credential proxy (the session holds only a placeholder); null: no login was found.
     */
    login: z.string().nullable(),
  }),
  z.object({
    ...base,
    type: z.literal('llm.retry'),
    attempt: z.number(),
    delayMs: z.number(),
    reason: z.string(),
  }),
  z.object({
    ...base,
    type: z.literal('tool.called'),
    name: z.string(),
    args: z.unknown(),
    ok: z.boolean(),
    summary: z.string(),
    durationMs: z.number(),
    /** An MCP tool's call: what it did is outside the snapshots (a rollback cannot undo it). */
    outsideSnapshot: z.boolean().optional(),
  }),
  z.object({
    ...base,
    type: z.literal('mcp.servers'),
    /** How each of the project's MCP servers started for this task (a failed one: why). */
    servers: z.array(
      z.object({
        server: z.string(),
        ok: z.boolean(),
        tools: z.number(),
        message: z.string(),
        lost: z.boolean().optional(),
      }),
    ),
  }),
  z.object({
    ...base,
    type: z.literal('phase.changed'),
    from: z.enum(['plan', 'build']),
    to: z.enum(['plan', 'build']),
    reason: z.string(),
  }),
  z.object({
    ...base,
    type: z.literal('gate.result'),
    gate: z.string(),
    severity: gateSeverity,
    message: z.string(),
    attempt: z.number().optional(),
  }),
  z.object({
    ...base,
    type: z.literal('stall.detected'),
    kind: z.enum(['repeat', 'no-progress']),
    recovery: z.number(),
    action: z.enum(['recover', 'rollback']),
    message: z.string(),
  }),
  /** The iteration filled its context budget (or the provider refused its length): progress.md has the checkpoint. */
  z.object({
    ...base,
    type: z.literal('checkpoint.written'),
    reason: z.enum(['budget', 'context-error']),
    by: z.enum(['model', 'harness']),
    usedTokens: z.number(),
    windowTokens: z.number(),
    text: z.string(),
  }),
  /** A usage limit (429 with a long reset): the task waits until `resetAt` (ISO time), then repeats the request. */
  z.object({
    ...base,
    type: z.literal('limit.waiting'),
    resetAt: z.string(),
    waitMs: z.number(),
    message: z.string(),
  }),
  z.object({ ...base, type: z.literal('limit.resumed'), waitedMs: z.number() }),
  /**
   * The task has spent 75% of its cost cap, or used 75% of its token cap (once per cap); at 100% it fails with
   * reason `cost-cap`. A cost warning carries dollars, a token warning tokens.
   */
  z.object({
    ...base,
    type: z.literal('budget.warning'),
    spentUsd: z.number().optional(),
    capUsd: z.number().optional(),
    usedTokens: z.number().optional(),
    capTokens: z.number().optional(),
    message: z.string(),
  }),
  z.object({
    ...base,
    type: z.literal('task.completed'),
    summary: z.string(),
    iterations: z.number(),
    postTag: z.string(),
    costUsd: z.number(),
    // Optional in the schema only so events recorded before receipts existed still parse; the loop always sends it.
    receipt: taskReceiptSchema.optional(),
  }),
  z.object({
    ...base,
    type: z.literal('task.failed'),
    reason: taskFailReason,
    message: z.string(),
    iterations: z.number(),
    rolledBackTo: z.string().nullable(),
    receipt: taskReceiptSchema.optional(),
  }),
])

export type LoopEvent = z.infer<typeof loopEventSchema>
export type LoopEventType = LoopEvent['type']
