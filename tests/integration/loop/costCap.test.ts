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

  it('bounds the next call’s max_tokens by what the rest of the cap buys at the output price (issue 34)', async () => {
    // $0.01 cap, $1 per 1M input and $100 per 1M output: the parse costs $0.0001, the prompt a few thousandths.
    const priced = { 'fake-model': { input: 1, output: 100 } }
    t.llm.enqueue(
      withUsage(parsed({ type: 'bugfix' }), { prompt_tokens: 100, completion_tokens: 0 }),
      withUsage(tools(['mark_complete', { summary: 'Done.' }]), {
        prompt_tokens: 100,
        completion_tokens: 10,
      }),
    )
    await t.h.run('check', { extra: { prices: priced, maxCostUsd: 0.01 } })
    const turn = t.h.chatRequests().find((r) => 'tools' in r)
    const body = turn as { max_tokens?: number; max_completion_tokens?: number }
    const maxTokens = body.max_tokens ?? body.max_completion_tokens
    // At most the $0.0099 left buys at $100 per 1M: 99 tokens, less the prompt's share.
    expect(maxTokens).toBeGreaterThan(0)
    expect(maxTokens).toBeLessThan(99)
  })

  it('refuses a call whose prompt alone would pass the cap, ending with the cost-cap message (issue 34)', async () => {
    // $100 per 1M input: the iteration's prompt (thousands of tokens) alone costs more than the $0.01 cap.
    const priced = { 'fake-model': { input: 100, output: 100 } }
    t.llm.enqueue(withUsage(parsed({ type: 'bugfix' }), { prompt_tokens: 10, completion_tokens: 0 }))
    const result = await t.h.run('check', { extra: { prices: priced, maxCostUsd: 0.01 } })
    expect(result).toMatchObject({ status: 'failed', reason: 'cost-cap' })
    expect(result.message).toMatch(
      /^Stopped: cost cap of \$0\.01 reached \(\$0\.001 spent\)\. The next call's prompt alone/,
    )
    // Only the parse reached the model.
    expect(t.h.chatRequests()).toHaveLength(1)
  })

  it('a token cap stops a task whose model has no price, counting prompt and answer tokens (issue 37)', async () => {
    // No price for fake-model: a cost cap could count nothing, the token cap counts every token.
    t.llm.enqueue(
      withUsage(parsed({ type: 'bugfix' }), { prompt_tokens: 100, completion_tokens: 20 }),
      withUsage(tools(['write_file', { path: 'b.txt', content: 'b' }]), {
        prompt_tokens: 6_000,
        completion_tokens: 80,
      }),
      withUsage(tools(['read_file', { path: 'b.txt' }]), { prompt_tokens: 4_000, completion_tokens: 10 }),
    )
    const result = await t.h.run('write b.txt', { extra: { maxTokens: 10_000 } })
    expect(result).toMatchObject({ status: 'failed', reason: 'cost-cap' })
    expect(result.message).toContain('Stopped: token cap of 10,000 tokens reached')
    expect(result.message).toContain('The pre-task snapshot task-1-pre is intact')
    expect(t.h.events.find((e) => e.type === 'iteration.started')).toMatchObject({ tokenCap: 10_000 })
    // The next answer is bounded by what is left of the cap after the tokens used and the prompt.
    const turns = t.h.chatRequests().filter((r) => 'tools' in r) as {
      max_tokens?: number
      max_completion_tokens?: number
    }[]
    const first = turns[0]!.max_tokens ?? turns[0]!.max_completion_tokens
    expect(first).toBeGreaterThan(0)
    expect(first).toBeLessThan(10_000 - 120)
    // The cap is kept with the run (the card shows the tokens against it after a reload).
    expect(t.h.db.prepare('SELECT token_cap, cost_cap_usd FROM runs').get()).toEqual({
      token_cap: 10_000,
      cost_cap_usd: null,
    })
  })

  it('a token cap warns at 75% and stops on the call that reaches it', async () => {
    t.llm.enqueue(
      withUsage(parsed({ type: 'bugfix' }), usage(100)),
      withUsage(tools(['write_file', { path: 'b.txt', content: 'b' }]), usage(4_000)),
      withUsage(tools(['read_file', { path: 'b.txt' }]), usage(4_000)),
      withUsage(tools(['read_file', { path: 'b.txt' }]), usage(4_000)),
    )
    const result = await t.h.run('write b.txt', { extra: { maxTokens: 10_000 } })
    const warning = t.h.events.find((e) => e.type === 'budget.warning')
    expect(warning).toMatchObject({ usedTokens: 8_100, capTokens: 10_000 })
    expect(result).toMatchObject({ status: 'failed', reason: 'cost-cap' })
    expect(result.message).toMatch(
      /^Stopped: token cap of 10,000 tokens reached \((12,100 used|[\d,]+ used\)\. The next call)/,
    )
  })
})
