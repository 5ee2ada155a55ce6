import type { Db } from './database'
import type { UsageRecord } from './runsRepo'

/**
 * What the chat keeps beside the loop's own rows: the run journal (the model's text per iteration, each tool
 * call's answer, phase changes, stall and checkpoint notices, which the loop's tables do not hold) and the link
 * from an Ask answer to its usage row in llm_usage.
 * Tables: migration 011.
 */

export type JournalKind = 'text' | 'tool' | 'phase' | 'stall' | 'checkpoint' | 'limit' | 'retry'

export interface JournalRow {
  iteration: number
  pos: number
  kind: JournalKind
  text: string
}

export interface AnswerUsage {
  usd: number
  inputTokens: number
  outputTokens: number
  cacheReadTokens: number
  calls: number
  priced: boolean
}

export class ChatRecordsRepo {
  constructor(private readonly db: Db) {}

  addJournal(runId: number, entry: JournalRow): void {
    this.db
      .prepare('INSERT INTO run_journal (run_id, iteration, pos, kind, text) VALUES (?, ?, ?, ?, ?)')
      .run(runId, entry.iteration, entry.pos, entry.kind, entry.text)
  }

  journal(runId: number): JournalRow[] {
    return this.db
      .prepare<
        [number],
        JournalRow
      >('SELECT iteration, pos, kind, text FROM run_journal WHERE run_id = ? ORDER BY iteration, id')
      .all(runId)
  }

  /** Records an answer's usage as one llm_usage row (purpose `ask`, no run) and links it to the answer. */
  recordAnswerUsage(
    messageId: number,
    usage: Omit<UsageRecord, 'runId' | 'task' | 'iteration' | 'purpose'> & { calls: number; priced: boolean },
    now = Date.now(),
  ): void {
    this.db.transaction(() => {
      const usageId = Number(
        this.db
          .prepare(
            `INSERT INTO llm_usage (run_id, task, iteration, purpose, provider, model, input_tokens, output_tokens,
               cache_read_tokens, cache_write_tokens, reasoning_tokens, duration_ms, cost_usd, created_at)
             VALUES (NULL, NULL, NULL, 'ask', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          )
          .run(
            usage.provider,
            usage.model,
            usage.inputTokens,
            usage.outputTokens,
            usage.cacheReadTokens ?? 0,
            usage.cacheWriteTokens ?? 0,
            usage.reasoningTokens ?? 0,
            Math.round(usage.durationMs),
            usage.costUsd,
            now,
          ).lastInsertRowid,
      )
      this.db
        .prepare(
          'INSERT OR REPLACE INTO answer_usage (message_id, usage_id, calls, priced) VALUES (?, ?, ?, ?)',
        )
        .run(messageId, usageId, usage.calls, usage.priced ? 1 : 0)
    })()
  }

  /** The usage of the given answers, by message id (answers without a recorded usage are left out). */
  answerUsage(messageIds: number[]): Map<number, AnswerUsage> {
    const out = new Map<number, AnswerUsage>()
    if (!messageIds.length) return out
    const rows = this.db
      .prepare<
        number[],
        { message_id: number; usd: number; i: number; o: number; r: number; priced: number; calls: number }
      >(
        `SELECT a.message_id, u.cost_usd AS usd, u.input_tokens AS i, u.output_tokens AS o, u.cache_read_tokens AS r,
           a.priced, a.calls
         FROM answer_usage a JOIN llm_usage u ON u.id = a.usage_id
         WHERE a.message_id IN (${messageIds.map(() => '?').join(', ')})`,
      )
      .all(...messageIds)
    for (const r of rows) {
      out.set(r.message_id, {
        usd: r.usd,
        inputTokens: r.i,
        outputTokens: r.o,
        cacheReadTokens: r.r,
        calls: r.calls,
        priced: r.priced === 1,
      })
    }
    return out
  }
}
