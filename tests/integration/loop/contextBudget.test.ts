import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { LoopEvent } from '../../../src/shared/loopEvents'
import { loopFixture, parsed, say, tools, withUsage } from './harness'

type Message = { role: string; content: unknown }
const WINDOW = 8_000
const budget = { contextWindows: { 'fake-model': WINDOW } }
const text = (messages: Message[]) => JSON.stringify(messages)
const lastUser = (messages: Message[]) => messages.filter((m) => m.role === 'user').at(-1)!.content as string

// A file far larger than the window: 3,000 numbered lines of 60 characters (~45k tokens by our estimate).
const bigFile = Array.from({ length: 3000 }, (_, i) => `line ${i + 1}: ${'x'.repeat(50)}`).join('\n')

describe('the context budget of an iteration', () => {
  const t = loopFixture()

  it('truncates tool results to the budget, ends the iteration with the model’s checkpoint, and shows it next time', async () => {
    t.h.write({ 'big.txt': bigFile })
    t.llm.enqueue(
      parsed({ type: 'bugfix' }),
      tools(['read_file', { path: 'big.txt' }]),
      say('**Done:** read big.txt, it is long.\n**Next:** fix line 42 only (read_file offset 40 limit 5).'),
      tools(
        ['write_file', { path: 'fix.txt', content: 'fixed line 42' }],
        ['mark_complete', { summary: 'Fixed line 42 as the checkpoint said.' }],
      ),
    )
    const result = await t.h.run('fix line 42 of big.txt', { extra: budget })
    expect(result.status).toBe('complete')
    expect(result.iterations).toBe(2)

    const checkpoint = t.h.events.find((e) => e.type === 'checkpoint.written') as Extract<
      LoopEvent,
      { type: 'checkpoint.written' }
    >
    expect(checkpoint).toMatchObject({ iteration: 1, reason: 'budget', by: 'model', windowTokens: WINDOW })
    expect(checkpoint.usedTokens).toBeGreaterThanOrEqual(WINDOW * 0.8 - 512)
    expect(checkpoint.usedTokens).toBeLessThanOrEqual(WINDOW)

    const [, , checkpointRequest, nextIteration] = t.h.chatRequests()
    // The big result was cut before it was sent, with a note; the whole request stays inside the window.
    expect(text(checkpointRequest!.messages)).toContain('truncated by Ralph')
    expect(text(checkpointRequest!.messages)).not.toContain('line 2999:')
    expect(text(checkpointRequest!.messages).length / 4).toBeLessThan(WINDOW)
    expect(lastUser(checkpointRequest!.messages)).toContain('context budget is used up')
    expect((t.llm.requests[2]!.body as { tool_choice?: unknown }).tool_choice).toBe('none')

    const progress = readFileSync(join(t.h.dir, '.ralph/progress.md'), 'utf8')
    expect(progress).toContain('## Checkpoint after iteration 1')
    expect(progress).toContain('fix line 42 only')
    // The next iteration is fresh (one user message) and carries the checkpoint.
    expect(nextIteration!.messages.filter((m) => m.role !== 'system')).toHaveLength(1)
    expect(lastUser(nextIteration!.messages)).toContain('## .ralph/progress.md')
    expect(lastUser(nextIteration!.messages)).toContain('fix line 42 only')

    const done = t.h.events.at(-1) as Extract<LoopEvent, { type: 'task.completed' }>
    expect(done.receipt).toMatchObject({ checkpoints: 1, iterations: 2 })
    const rows = t.h.db.prepare('SELECT iteration, reason, written_by FROM checkpoints').all()
    expect(rows).toEqual([{ iteration: 1, reason: 'budget', written_by: 'model' }])
  })

  it('trusts the usage the provider reports, and writes the checkpoint itself when no room is left', async () => {
    t.h.write({ 'a.txt': 'alpha\n' })
    t.llm.enqueue(
      parsed({ type: 'bugfix' }),
      // The provider says this step already used 7,900 of the 8,000 tokens: no room to ask for a checkpoint.
      withUsage(tools(['read_file', { path: 'a.txt' }]), { prompt_tokens: 7_800, completion_tokens: 100 }),
      tools(
        ['write_file', { path: 'b.txt', content: 'beta' }],
        ['mark_complete', { summary: 'Wrote b.txt after reading a.txt.' }],
      ),
    )
    const result = await t.h.run('copy a to b', { extra: budget })
    expect(result.status).toBe('complete')
    const checkpoint = t.h.events.find((e) => e.type === 'checkpoint.written') as Extract<
      LoopEvent,
      { type: 'checkpoint.written' }
    >
    expect(checkpoint).toMatchObject({ iteration: 1, reason: 'budget', by: 'harness' })
    // The reported 7,900 tokens plus our estimate of the tool result sent after them.
    expect(checkpoint.usedTokens).toBeGreaterThan(7_900)
    expect(checkpoint.usedTokens).toBeLessThan(8_000)
    // parse, iteration 1, iteration 2: no checkpoint request was sent.
    expect(t.h.chatRequests()).toHaveLength(3)
    const progress = readFileSync(join(t.h.dir, '.ralph/progress.md'), 'utf8')
    expect(progress).toContain('- read_file a.txt')
    expect(lastUser(t.h.chatRequests()[2]!.messages)).toContain('- read_file a.txt')
  })

  it("turns a provider's context_length_exceeded 400 into a checkpoint, not a failed task", async () => {
    t.h.write({ 'a.txt': 'alpha\n' })
    t.llm.enqueue(
      parsed({ type: 'bugfix' }),
      tools(['read_file', { path: 'a.txt' }]),
      {
        kind: 'error',
        status: 400,
        body: {
          error: {
            message:
              "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens.",
            type: 'invalid_request_error',
            code: 'context_length_exceeded',
          },
        },
      },
      tools(
        ['write_file', { path: 'b.txt', content: 'beta' }],
        ['mark_complete', { summary: 'Wrote b.txt after the checkpoint.' }],
      ),
    )
    const result = await t.h.run('copy a to b')
    expect(result.status).toBe('complete')
    expect(t.h.types()).not.toContain('task.failed')
    expect(t.h.types()).not.toContain('llm.retry')
    expect(t.h.events.find((e) => e.type === 'checkpoint.written')).toMatchObject({
      iteration: 1,
      reason: 'context-error',
      by: 'harness',
    })
    expect(readFileSync(join(t.h.dir, '.ralph/progress.md'), 'utf8')).toContain(
      "provider's context-length error",
    )
    expect(lastUser(t.h.chatRequests().at(-1)!.messages)).toContain('- read_file a.txt')
  })

  it('clears progress.md when the next task starts', async () => {
    t.h.write({ 'a.txt': 'alpha\n' })
    t.llm.enqueue(
      parsed({ type: 'bugfix' }),
      withUsage(tools(['read_file', { path: 'a.txt' }]), { prompt_tokens: 7_900, completion_tokens: 50 }),
      tools(['write_file', { path: 'b.txt', content: 'b' }], ['mark_complete', { summary: 'Wrote b.txt.' }]),
    )
    expect((await t.h.run('first', { extra: budget })).status).toBe('complete')
    expect(readFileSync(join(t.h.dir, '.ralph/progress.md'), 'utf8')).toContain(
      'Checkpoint after iteration 1',
    )
    t.llm.enqueue(parsed({ type: 'needs-clarification', clarification: 'Which one?' }))
    await t.h.run('second')
    expect(readFileSync(join(t.h.dir, '.ralph/progress.md'), 'utf8')).toBe('')
  })
})
