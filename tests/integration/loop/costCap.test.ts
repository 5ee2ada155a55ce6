import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { loopFixture, parsed, say, tools, withUsage } from './harness'

// $10 per 1M input tokens for the fake model, so each scripted usage has a known cost.
const prices = { 'fake-model': { input: 10, output: 0 } }
const usage = (prompt_tokens: number) => ({ prompt_tokens, completion_tokens: 0 })

describe('a task cost cap (runTask, in process)', () => {
  const t = loopFixture()

  it('stops on the checkpoint call that reaches the cap: the checkpoint request cannot swallow the stop', async () => {
    t.h.write({ 'a.txt': 'alpha\n' })
    t.llm.enqueue(
      withUsage(parsed({ type: 'bugfix' }), usage(120)), // $0.0012
      withUsage(tools(['write_file', { path: 'b.txt', content: 'b' }]), usage(900)), // $0.0102
      withUsage(tools(['read_file', { path: 'a.txt' }]), usage(7_600)), // $0.0862: the context is full
      withUsage(say('**Done:** wrote b.txt.\n**Next:** finish.'), usage(7_700)), // $0.1632: the checkpoint
    )
    const result = await t.h.run('write b.txt', {
      extra: { prices, contextWindows: { 'fake-model': 10_000 }, maxCostUsd: 0.15 },
    })
    expect(result).toMatchObject({ status: 'failed', reason: 'cost-cap' })
    expect(result.message).toContain('Stopped: cost cap of $0.15 reached ($0.1632 spent).')
    expect(t.h.types()).not.toContain('checkpoint.written')
    // 75% ($0.1125) was never seen between calls: the checkpoint call jumped from 57% past the cap.
    expect(t.h.types()).not.toContain('budget.warning')
    expect(t.h.types().filter((e) => e === 'iteration.started')).toHaveLength(1)
    expect(t.h.chatRequests()).toHaveLength(4)
    const run = t.h.db.prepare('SELECT status, reason FROM runs').get()
    expect(run).toEqual({ status: 'failed', reason: 'cost-cap' })
    // The iteration the cap ended is closed, with the calls it made.
    const iteration = t.h.db.prepare('SELECT outcome, tool_calls, ended_at FROM iterations').get()
    expect(iteration).toMatchObject({ outcome: 'cost-cap', tool_calls: 2, ended_at: expect.any(Number) })
  })

  it('stops before the first iteration when the parse alone reaches the cap', async () => {
    t.llm.enqueue(withUsage(parsed({ type: 'bugfix' }), usage(20_000))) // $0.20
    const result = await t.h.run('write b.txt', { extra: { prices, maxCostUsd: 0.1 } })
    expect(result).toMatchObject({ status: 'failed', reason: 'cost-cap', iterations: 0 })
    expect(t.h.types()).not.toContain('iteration.started')
    expect(t.h.chatRequests()).toHaveLength(1)
    expect(existsSync(join(t.h.dir, 'b.txt'))).toBe(false)
  })

  it('lets a task under its cap complete, without a warning', async () => {
    t.llm.enqueue(
      withUsage(parsed({ type: 'bugfix' }), usage(100)),
      withUsage(
        tools(
          ['write_file', { path: 'b.txt', content: 'b' }],
          ['mark_complete', { summary: 'Wrote b.txt.' }],
        ),
        usage(100),
      ),
    )
    const result = await t.h.run('check', { extra: { prices, maxCostUsd: 1 } })
    expect(result.status).toBe('complete')
    expect(t.h.types()).not.toContain('budget.warning')
    expect(t.h.events.find((e) => e.type === 'iteration.started')).toMatchObject({ costCapUsd: 1 })
  })
})
