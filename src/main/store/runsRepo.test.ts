import { join } from 'node:path'
import { beforeEach, describe, expect, it, onTestFinished } from 'vitest'
import { openDatabase } from './database'
import { migrations } from './migrations'
import { RunsRepo } from './runsRepo'
import { useTempDatabase } from './testkit'

describe('RunsRepo receipts, checkpoints and limit waits', () => {
  const store = useTempDatabase('ralph-runs-')
  let runs: RunsRepo
  beforeEach(() => {
    runs = new RunsRepo(store.db)
  })

  const usage = (
    runId: number,
    inputTokens: number,
    outputTokens: number,
    costUsd: number,
    cache: { cacheReadTokens?: number; cacheWriteTokens?: number } = {},
  ) =>
    runs.recordUsage({
      ...cache,
      runId,
      task: 1,
      iteration: 1,
      purpose: 'iteration',
      provider: 'openai',
      model: 'gpt-4o',
      inputTokens,
      outputTokens,
      durationMs: 10,
      costUsd,
    })

  it('sums a run’s usage, checkpoints and waits into its receipt, and keeps the saved one', () => {
    const runId = runs.startRun({ projectId: null, projectPath: '/p', task: 1, message: 'm' }, 1_000)
    const other = runs.startRun({ projectId: null, projectPath: '/p', task: 2, message: 'm' }, 1_000)
    usage(runId, 100, 10, 0.001)
    usage(runId, 200, 20, 0.002, { cacheReadTokens: 150, cacheWriteTokens: 20 })
    usage(other, 999, 999, 1, { cacheReadTokens: 999 })
    runs.recordCheckpoint(runId, {
      iteration: 1,
      reason: 'budget',
      by: 'model',
      usedTokens: 6500,
      windowTokens: 8000,
    })
    const wait = runs.startLimitWait(runId, 1, 60_000, 2_000)
    runs.endLimitWait(wait, 'resumed', 62_000)
    const receipt = runs.receiptFor(runId, 2)
    expect(receipt).toEqual({
      inputTokens: 300,
      outputTokens: 30,
      cacheReadTokens: 150,
      cacheWriteTokens: 20,
      costUsd: 0.003,
      calls: 2,
      iterations: 2,
      checkpoints: 1,
      limitWaits: 1,
      limitWaitMs: 60_000,
      // The spend per model: one here, the other run's calls not among them.
      models: [
        { provider: 'openai', model: 'gpt-4o', calls: 2, inputTokens: 300, outputTokens: 30, costUsd: 0.003 },
      ],
    })
    expect(runs.savedReceipt(runId)).toBeNull()
    runs.saveReceipt(runId, receipt)
    expect(runs.savedReceipt(runId)).toEqual(receipt)
  })

  it('closes the wait of a run whose process died while waiting', () => {
    const runId = runs.startRun({ projectId: null, projectPath: '/p', task: 1, message: 'm' })
    runs.startLimitWait(runId, 1, Date.now() + 7_200_000)
    expect(runs.openLimitWait(runId)).not.toBeNull()
    expect(runs.markInterrupted('/p')).toBe(1)
    expect(runs.openLimitWait(runId)).toBeNull()
    expect(store.db.prepare('SELECT outcome FROM limit_waits').all()).toEqual([{ outcome: 'interrupted' }])
  })

  it('reads usage recorded before migration 015 as no cache, priced as it was', () => {
    store.db.close()
    const file = join(store.dir, 'old.db')
    const old = openDatabase(file, { migrations: migrations.filter((m) => m.version <= 14) })
    const oldRuns = new RunsRepo(old)
    const runId = oldRuns.startRun({ projectId: null, projectPath: '/p', task: 1, message: 'm' })
    old
      .prepare(
        `INSERT INTO llm_usage (run_id, task, iteration, purpose, provider, model, input_tokens, output_tokens, duration_ms, cost_usd, created_at)
         VALUES (?, 1, 1, 'iteration', 'openai', 'gpt-4o', 1000, 100, 5, 0.0035, 0)`,
      )
      .run(runId)
    old.close()
    const reopened = openDatabase(file)
    onTestFinished(() => {
      reopened.close()
    })
    runs = new RunsRepo(reopened)
    expect(runs.receiptFor(runId, 1)).toMatchObject({
      inputTokens: 1000,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      costUsd: 0.0035,
    })
  })
})
