import { taskReceiptSchema, type TaskReceipt } from '../../shared/loopEvents'
import type { Db } from './database'

/** `interrupted`: the process running it died (crash, kill -9); set by crash recovery, never by the loop. */
export type RunStatus = 'running' | 'complete' | 'failed' | 'stopped' | 'waiting' | 'interrupted'

export interface RunRow {
  id: number
  projectPath: string
  task: number
  message: string
  type: string | null
  title: string | null
  status: RunStatus
  reason: string | null
  iterations: number
  startedAt: number
  endedAt: number | null
  /** The lane it ran in (a parallel build, migration 021); null outside lanes. */
  lane: number | null
}

export interface UsageRecord {
  runId: number | null
  task: number | null
  iteration: number | null
  purpose: 'parse' | 'iteration' | 'checkpoint' | 'verify'
  provider: string
  model: string
  /** All prompt tokens, cache reads and writes included (see TurnUsage in llm/modelTurn.ts). */
  inputTokens: number
  outputTokens: number
  /** Of `inputTokens`: read from / written to the provider's prompt cache. Absent: none. */
  cacheReadTokens?: number
  cacheWriteTokens?: number
  /** Of `cacheWriteTokens`: written for one hour (priced at its own rate). Absent: none. */
  cacheWrite1hTokens?: number
  /** Of `outputTokens`: reasoning. */
  reasoningTokens?: number
  durationMs: number
  costUsd: number
  /** Where the cost came from (the provider's bill or the catalog); not stored yet (no column), kept by the loop. */
  costSource?: 'provider' | 'catalog'
}

/** A run's LLM calls summed: tokens (cache parts of the input included in `inputTokens`), cost, calls. */
export interface RunCost {
  usd: number
  inputTokens: number
  outputTokens: number
  cacheReadTokens: number
  cacheWriteTokens: number
  calls: number
}

export interface CheckpointRecord {
  iteration: number
  reason: string
  by: string
  usedTokens: number
  windowTokens: number
}

export type LimitWaitOutcome = 'resumed' | 'cancelled' | 'interrupted'

/**
 * The loop's history: runs, iterations, tool calls, gate results and LLM usage (migration 003), checkpoints,
 * usage-limit waits and receipts (migration 006).
 */
export class RunsRepo {
  constructor(readonly db: Db) {}

  /** `lane`: the lane a parallel build ran the task in; its row is still the user's project's (projectPath). */
  startRun(
    input: {
      projectId: number | null
      projectPath: string
      task: number
      message: string
      lane?: number | null
    },
    now = Date.now(),
  ): number {
    const values = [input.projectId, input.projectPath, input.task, input.message, now]
    // The lane column only when there is a lane: a serial run's row reads the same on any schema since 003.
    const lane = input.lane ?? null
    const sql =
      lane === null
        ? `INSERT INTO runs (project_id, project_path, task, message, status, started_at) VALUES (?, ?, ?, ?, 'running', ?)`
        : `INSERT INTO runs (project_id, project_path, task, message, status, started_at, lane) VALUES (?, ?, ?, ?, 'running', ?, ?)`
    return Number(this.db.prepare(sql).run(...(lane === null ? values : [...values, lane])).lastInsertRowid)
  }

  updateRun(
    runId: number,
    patch: Partial<{
      type: string
      title: string
      status: RunStatus
      reason: string | null
      detail: string
      iterations: number
      /** null: running again (a resumed task). */
      endedAt: number | null
      message: string
      /** The login and base URL the task's engine session used (`engine.session`), for the card after a reload. */
      engineLogin: string | null
      /** The task's caps (migration 020): the card shows the spend (or tokens) against them. */
      costCapUsd: number
      tokenCap: number
    }>,
  ): void {
    const columns: Record<string, string> = {
      type: 'type',
      title: 'title',
      status: 'status',
      reason: 'reason',
      detail: 'detail',
      iterations: 'iterations',
      endedAt: 'ended_at',
      message: 'message',
      engineLogin: 'engine_login',
      costCapUsd: 'cost_cap_usd',
      tokenCap: 'token_cap',
    }
    const entries = Object.entries(patch).filter(([k, v]) => v !== undefined && columns[k])
    if (!entries.length) return
    const sql = `UPDATE runs SET ${entries.map(([k]) => `${columns[k]} = ?`).join(', ')} WHERE id = ?`
    this.db.prepare(sql).run(...entries.map(([, v]) => v as string | number | null), runId)
  }

  /**
   * Runs of a project left `running` by a process that died become `interrupted` (and a usage-limit wait they
   * were in is closed); returns how many.
   */
  markInterrupted(projectPath: string, now = Date.now()): number {
    return this.db.transaction(() => {
      this.db
        .prepare(
          `UPDATE limit_waits SET ended_at = ?, outcome = 'interrupted' WHERE ended_at IS NULL AND run_id IN
           (SELECT id FROM runs WHERE project_path = ? AND status = 'running')`,
        )
        .run(now, projectPath)
      return this.db
        .prepare(
          `UPDATE runs SET status = 'interrupted', reason = 'interrupted', ended_at = COALESCE(ended_at, ?)
           WHERE project_path = ? AND status = 'running'`,
        )
        .run(now, projectPath).changes
    })()
  }

  getRun(runId: number): RunRow | null {
    const row = this.db
      .prepare<[number], Record<string, unknown>>('SELECT * FROM runs WHERE id = ?')
      .get(runId)
    return row ? toRun(row) : null
  }

  /** The latest run of a task in a project (a waiting task is continued by the user's answer). */
  latestRun(projectPath: string, task: number): RunRow | null {
    const row = this.db
      .prepare<
        [string, number],
        Record<string, unknown>
      >('SELECT * FROM runs WHERE project_path = ? AND task = ? ORDER BY id DESC LIMIT 1')
      .get(projectPath, task)
    return row ? toRun(row) : null
  }

  /** The project's runs waiting for the user's answer, with the question they asked (their `detail`). */
  waitingRuns(
    projectPath: string,
  ): { id: number; task: number; title: string | null; question: string | null }[] {
    return this.db
      .prepare<
        [string],
        { id: number; task: number; title: string | null; question: string | null }
      >(`SELECT id, task, title, detail AS question FROM runs WHERE project_path = ? AND status = 'waiting' ORDER BY id`)
      .all(projectPath)
  }

  startIteration(
    runId: number,
    number: number,
    phase: string,
    promptTokensEstimate: number,
    now = Date.now(),
  ): number {
    return Number(
      this.db
        .prepare(
          `INSERT INTO iterations (run_id, number, phase, prompt_tokens_estimate, started_at) VALUES (?, ?, ?, ?, ?)
           ON CONFLICT(run_id, number) DO UPDATE SET phase = excluded.phase, started_at = excluded.started_at`,
        )
        .run(runId, number, phase, promptTokensEstimate, now).lastInsertRowid,
    )
  }

  endIteration(
    iterationId: number,
    patch: { signature: string; toolCalls: number; outcome: string },
    now = Date.now(),
  ): void {
    this.db
      .prepare('UPDATE iterations SET signature = ?, tool_calls = ?, outcome = ?, ended_at = ? WHERE id = ?')
      .run(patch.signature, patch.toolCalls, patch.outcome, now, iterationId)
  }

  recordToolCall(
    iterationId: number,
    seq: number,
    call: {
      name: string
      argsJson: string
      ok: boolean
      resultBytes: number
      durationMs: number
      error: string | null
    },
  ): void {
    this.db
      .prepare(
        `INSERT INTO tool_calls (iteration_id, seq, name, args_json, ok, result_bytes, duration_ms, error)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        iterationId,
        seq,
        call.name,
        call.argsJson,
        call.ok ? 1 : 0,
        call.resultBytes,
        Math.round(call.durationMs),
        call.error,
      )
  }

  recordGate(
    runId: number,
    iteration: number,
    attempt: number,
    gate: { gate: string; severity: string; message: string },
  ): void {
    this.db
      .prepare(
        'INSERT INTO gate_results (run_id, iteration, attempt, gate, severity, message) VALUES (?, ?, ?, ?, ?, ?)',
      )
      .run(runId, iteration, attempt, gate.gate, gate.severity, gate.message)
  }

  recordUsage(entry: UsageRecord, now = Date.now()): void {
    this.db
      .prepare(
        `INSERT INTO llm_usage (run_id, task, iteration, purpose, provider, model, input_tokens, output_tokens,
           cache_read_tokens, cache_write_tokens, cache_write_1h_tokens, reasoning_tokens, duration_ms, cost_usd,
           created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        entry.runId,
        entry.task,
        entry.iteration,
        entry.purpose,
        entry.provider,
        entry.model,
        entry.inputTokens,
        entry.outputTokens,
        entry.cacheReadTokens ?? 0,
        entry.cacheWriteTokens ?? 0,
        entry.cacheWrite1hTokens ?? 0,
        entry.reasoningTokens ?? 0,
        Math.round(entry.durationMs),
        entry.costUsd,
        now,
      )
  }

  costForRun(runId: number): RunCost {
    const row = this.db
      .prepare<
        [number],
        {
          usd: number | null
          i: number | null
          o: number | null
          r: number | null
          w: number | null
          n: number
        }
      >(
        `SELECT SUM(cost_usd) AS usd, SUM(input_tokens) AS i, SUM(output_tokens) AS o, SUM(cache_read_tokens) AS r,
           SUM(cache_write_tokens) AS w, COUNT(*) AS n FROM llm_usage WHERE run_id = ?`,
      )
      .get(runId)!
    return {
      usd: row.usd ?? 0,
      inputTokens: row.i ?? 0,
      outputTokens: row.o ?? 0,
      cacheReadTokens: row.r ?? 0,
      cacheWriteTokens: row.w ?? 0,
      calls: row.n,
    }
  }

  /** A run's calls per model, in the order each model was first used (the receipt's spend per model). */
  costByModel(runId: number): NonNullable<TaskReceipt['models']> {
    return this.db
      .prepare<[number], { provider: string; model: string; n: number; i: number; o: number; usd: number }>(
        `SELECT provider, model, COUNT(*) AS n, SUM(input_tokens) AS i, SUM(output_tokens) AS o, SUM(cost_usd) AS usd
           FROM llm_usage WHERE run_id = ? GROUP BY provider, model ORDER BY MIN(id)`,
      )
      .all(runId)
      .map((r) => ({
        provider: r.provider,
        model: r.model,
        calls: r.n,
        inputTokens: r.i,
        outputTokens: r.o,
        costUsd: Math.round(r.usd * 1e8) / 1e8,
      }))
  }

  recordCheckpoint(runId: number, checkpoint: CheckpointRecord, now = Date.now()): void {
    this.db
      .prepare(
        `INSERT INTO checkpoints (run_id, iteration, reason, written_by, used_tokens, window_tokens, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        runId,
        checkpoint.iteration,
        checkpoint.reason,
        checkpoint.by,
        Math.round(checkpoint.usedTokens),
        Math.round(checkpoint.windowTokens),
        now,
      )
  }

  /** Opens a usage-limit wait; `endLimitWait` closes it. Returns its id. */
  startLimitWait(runId: number, iteration: number | null, resetAt: number, now = Date.now()): number {
    return Number(
      this.db
        .prepare('INSERT INTO limit_waits (run_id, iteration, started_at, reset_at) VALUES (?, ?, ?, ?)')
        .run(runId, iteration, now, Math.round(resetAt)).lastInsertRowid,
    )
  }

  endLimitWait(waitId: number, outcome: LimitWaitOutcome, now = Date.now()): void {
    this.db
      .prepare('UPDATE limit_waits SET ended_at = ?, outcome = ? WHERE id = ? AND ended_at IS NULL')
      .run(now, outcome, waitId)
  }

  /** The wait a run is in right now (the UI's "waiting for the usage limit" state), or null. */
  openLimitWait(runId: number): { id: number; startedAt: number; resetAt: number } | null {
    const row = this.db
      .prepare<
        [number],
        { id: number; started_at: number; reset_at: number }
      >('SELECT id, started_at, reset_at FROM limit_waits WHERE run_id = ? AND ended_at IS NULL ORDER BY id DESC LIMIT 1')
      .get(runId)
    return row ? { id: row.id, startedAt: row.started_at, resetAt: row.reset_at } : null
  }

  /** A run's receipt, summed from what the store recorded (usage, checkpoints, limit waits). */
  receiptFor(runId: number, iterations: number): TaskReceipt {
    const usage = this.costForRun(runId)
    const checkpoints = this.db
      .prepare<[number], { n: number }>('SELECT COUNT(*) AS n FROM checkpoints WHERE run_id = ?')
      .get(runId)!.n
    const waits = this.db
      .prepare<
        [number],
        { n: number; ms: number | null }
      >('SELECT COUNT(*) AS n, SUM(COALESCE(ended_at, started_at) - started_at) AS ms FROM limit_waits WHERE run_id = ?')
      .get(runId)!
    const models = this.costByModel(runId)
    return {
      inputTokens: usage.inputTokens,
      outputTokens: usage.outputTokens,
      cacheReadTokens: usage.cacheReadTokens,
      cacheWriteTokens: usage.cacheWriteTokens,
      costUsd: Math.round(usage.usd * 1e8) / 1e8,
      ...(models.length ? { models } : {}),
      calls: usage.calls,
      iterations,
      checkpoints,
      limitWaits: waits.n,
      limitWaitMs: waits.ms ?? 0,
    }
  }

  /** Keeps the receipt the task finished with on its run. */
  saveReceipt(runId: number, receipt: TaskReceipt): void {
    this.db.prepare('UPDATE runs SET receipt_json = ? WHERE id = ?').run(JSON.stringify(receipt), runId)
  }

  /** The receipt a finished run was saved with; null while it runs, or for runs older than receipts. */
  savedReceipt(runId: number): TaskReceipt | null {
    const row = this.db
      .prepare<[number], { receipt_json: string | null }>('SELECT receipt_json FROM runs WHERE id = ?')
      .get(runId)
    if (!row?.receipt_json) return null
    const parsed = taskReceiptSchema.safeParse(JSON.parse(row.receipt_json))
    return parsed.success ? parsed.data : null
  }

  toolCallsForRun(runId: number): { iteration: number; name: string; argsJson: string; ok: boolean }[] {
    return this.db
      .prepare<[number], { iteration: number; name: string; args_json: string; ok: number }>(
        `SELECT i.number AS iteration, t.name, t.args_json, t.ok FROM tool_calls t JOIN iterations i ON i.id = t.iteration_id
         WHERE i.run_id = ? ORDER BY i.number, t.seq`,
      )
      .all(runId)
      .map((r) => ({ iteration: r.iteration, name: r.name, argsJson: r.args_json, ok: r.ok === 1 }))
  }
}

function toRun(row: Record<string, unknown>): RunRow {
  return {
    id: row.id as number,
    projectPath: row.project_path as string,
    task: row.task as number,
    message: row.message as string,
    type: (row.type as string | null) ?? null,
    title: (row.title as string | null) ?? null,
    status: row.status as RunStatus,
    reason: (row.reason as string | null) ?? null,
    iterations: row.iterations as number,
    startedAt: row.started_at as number,
    endedAt: (row.ended_at as number | null) ?? null,
    lane: (row.lane as number | null) ?? null,
  }
}
