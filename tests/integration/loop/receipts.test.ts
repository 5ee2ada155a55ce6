import { describe, expect, it } from 'vitest'
import type { LoopEvent, TaskReceipt } from '../../../src/shared/loopEvents'
import type { ScriptedUsage } from '../../fixtures/fakeLlmServer'
import { loopFixture, parsed, say, tools, withUsage } from './harness'

// USD per 1M tokens, so every call has a cost the receipt must add up.
const prices = { 'fake-model': { input: 3, output: 15 } }

describe('task receipts', () => {
  const t = loopFixture()

  it('sum exactly the calls the provider answered, with iterations, checkpoints and cost, and are kept in SQLite', async () => {
    const answered: ScriptedUsage[] = [
      { prompt_tokens: 120, completion_tokens: 40 }, // parse
      { prompt_tokens: 900, completion_tokens: 60 }, // iteration 1: write
      { prompt_tokens: 7_600, completion_tokens: 30 }, // iteration 1: read (80 % of the window: full)
      { prompt_tokens: 7_700, completion_tokens: 80 }, // the checkpoint the model writes
      { prompt_tokens: 1_000, completion_tokens: 70 }, // iteration 2: done
    ]
    t.h.write({ 'a.txt': 'alpha\n' })
    t.llm.enqueue(
      withUsage(parsed({ type: 'bugfix' }), answered[0]!),
      { kind: 'error', status: 500 }, // refused: costs nothing, counts as no call
      withUsage(tools(['write_file', { path: 'b.txt', content: 'b' }]), answered[1]!),
      withUsage(tools(['read_file', { path: 'a.txt' }]), answered[2]!),
      withUsage(say('**Done:** wrote b.txt.\n**Next:** finish.'), answered[3]!),
      withUsage(tools(['mark_complete', { summary: 'Wrote b.txt and checked a.txt.' }]), answered[4]!),
    )
    const result = await t.h.run('write b.txt', {
      extra: { prices, contextWindows: { 'fake-model': 10_000 } },
    })
    expect(result.status).toBe('complete')

    const input = answered.reduce((n, u) => n + u.prompt_tokens, 0)
    const output = answered.reduce((n, u) => n + u.completion_tokens, 0)
    const expected: TaskReceipt = {
      inputTokens: input,
      outputTokens: output,
      // The chat-completions fake reports no prompt cache.
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      costUsd: Math.round(((input * 3 + output * 15) / 1_000_000) * 1e8) / 1e8,
      calls: answered.length,
      iterations: 2,
      checkpoints: 1,
      limitWaits: 0,
      limitWaitMs: 0,
      // One model did everything (no fast model): its spend is the whole.
      models: [
        expect.objectContaining({
          provider: 'openai-compatible',
          model: 'fake-model',
          calls: answered.length,
          inputTokens: input,
          outputTokens: output,
          costSource: 'catalog',
        }),
      ],
    }
    // Every chat request the server saw, minus the one it refused.
    expect(t.h.chatRequests()).toHaveLength(answered.length + 1)
    const completed = t.h.events.at(-1) as Extract<LoopEvent, { type: 'task.completed' }>
    expect(completed.type).toBe('task.completed')
    expect(completed.receipt!.costUsd).toBeCloseTo(expected.costUsd, 8)
    expect({ ...completed.receipt, costUsd: 0 }).toEqual({ ...expected, costUsd: 0 })
    expect(completed.costUsd).toBe(completed.receipt!.costUsd)
    expect(result.receipt).toEqual(completed.receipt)

    const runId = (t.h.db.prepare('SELECT id FROM runs').get() as { id: number }).id
    expect(t.h.runs.savedReceipt(runId)).toEqual(completed.receipt)
    const purposes = t.h.db.prepare('SELECT purpose FROM llm_usage ORDER BY id').all()
    expect(purposes.map((p) => (p as { purpose: string }).purpose)).toEqual([
      'parse',
      'iteration',
      'iteration',
      'checkpoint',
      'iteration',
    ])
  })

  it('are carried by task.failed too', async () => {
    t.llm.enqueue(parsed({ type: 'bugfix' }), say('hmm'), say('still thinking'))
    const result = await t.h.run('fix', { maxIterations: 2 })
    expect(result).toMatchObject({ status: 'failed', reason: 'max-iterations' })
    const failed = t.h.events.at(-1) as Extract<LoopEvent, { type: 'task.failed' }>
    expect(failed.receipt).toEqual({
      inputTokens: 30,
      outputTokens: 15,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      costUsd: 0,
      calls: 3,
      iterations: 2,
      checkpoints: 0,
      limitWaits: 0,
      limitWaitMs: 0,
      models: [
        {
          provider: 'openai-compatible',
          model: 'fake-model',
          calls: 3,
          inputTokens: 30,
          outputTokens: 15,
          costUsd: 0,
          costSource: 'catalog',
        },
      ],
    })
  })
})
