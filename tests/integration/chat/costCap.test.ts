import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { ChatMessageDto } from '../../../src/shared/api/chat'
import type { LoopEvent } from '../../../src/shared/loopEvents'
import { useChatCore } from '../../helpers/chatCore'
import { parsed, tools, withUsage } from '../loop/harness'

// chat.send's cost cap through the contract, on a real core: real SQLite, real loop, real HTTP to the fake LLM
// server. gpt-4o has a catalog price ($2.50 per 1M input tokens), so the scripted usage has a known cost.
describe('chat.send with a cost cap', { timeout: 120_000 }, () => {
  const chat = useChatCore({ model: 'gpt-4o' })
  const { call } = chat
  const history = () =>
    call<{ messages: ChatMessageDto[] }>('chat.history', { projectId: chat.projectId }).then(
      (h) => h.messages,
    )
  const loopEvents = () =>
    chat.seen.filter((e) => e.name === 'loop.event').map((e) => (e.payload as { event: LoopEvent }).event)
  const usage = (prompt_tokens: number) => ({ prompt_tokens, completion_tokens: 0 })

  it('reaches the task of a queued card, and its card says it stopped at the cap', async () => {
    let release!: () => void
    const held = new Promise<void>((resolve) => (release = resolve))
    chat.llm.enqueue(
      {
        kind: 'computed',
        reply: async () => {
          await held
          return parsed({ type: 'fresh', title: 'Write a' })
        },
      },
      tools(['write_file', { path: 'a.txt', content: 'a' }], ['mark_complete', { summary: 'Wrote a.' }]),
      withUsage(parsed({ type: 'bugfix', title: 'Write b' }), usage(4_000)), // $0.01
      withUsage(tools(['write_file', { path: 'b.txt', content: 'b' }]), usage(40_000)), // $0.11: over $0.10
    )
    await call('chat.send', { projectId: chat.projectId, mode: 'task', text: 'write a.txt' })
    const queued = await call<{ queued: boolean }>('chat.send', {
      projectId: chat.projectId,
      mode: 'task',
      text: 'write b.txt',
      maxCostUsd: 0.1,
    })
    expect(queued.queued).toBe(true)
    release()
    await expect
      .poll(() => chat.seen.filter((e) => e.name === 'loop.finished').map((e) => e.payload), {
        timeout: 60_000,
      })
      .toEqual([
        expect.objectContaining({ status: 'complete', task: 1 }),
        expect.objectContaining({ status: 'failed', task: 2 }),
      ])
    // Task 1 had no cap; task 2 had the queued card's.
    const started = loopEvents().filter((e) => e.type === 'iteration.started')
    expect(started.map((e) => [e.task, e.costCapUsd])).toEqual([
      [1, undefined],
      [2, 0.1],
    ])
    const card = (await history()).find((m) => m.card?.task === 2)!.card!
    expect(card).toMatchObject({ status: 'failed', reason: 'cost-cap' })
    expect(card.outcome).toContain('Stopped: cost cap of $0.10 reached ($0.11 spent).')
    expect(existsSync(join(chat.dir, 'b.txt'))).toBe(false)
  })

  it('refuses a cap that is not a positive number', async () => {
    for (const maxCostUsd of [0, -1, 20_000]) {
      const result = await chat.core.dispatch('chat.send', {
        projectId: chat.projectId,
        mode: 'task',
        text: 'go',
        maxCostUsd,
      })
      expect(result.ok).toBe(false)
    }
    expect(await history()).toEqual([])
  })
})
