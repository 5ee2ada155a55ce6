import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { solidPng } from '../../helpers/png'
import { useChatCore } from '../../helpers/chatCore'
import { parsed, tools } from '../loop/harness'

// chat.send's images through the contract, on a real core: a Task message sent while a task runs is queued with
// its images, and they reach its task (stored under .ralph/attachments/task-N/, sent as image_url parts).
describe('chat.send with images', { timeout: 120_000 }, () => {
  const chat = useChatCore()
  const { call } = chat

  it('keeps a queued message’s images until its task starts, then stores and sends them', async () => {
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
      parsed({ type: 'fresh', title: 'Match the mockup' }),
      tools(['write_file', { path: 'b.txt', content: 'b' }], ['mark_complete', { summary: 'Matched it.' }]),
    )
    const png = solidPng(3, 2, [0, 128, 255, 255])
    await call('chat.send', { projectId: chat.projectId, mode: 'task', text: 'write a.txt' })
    const queued = await call<{ queued: boolean }>('chat.send', {
      projectId: chat.projectId,
      mode: 'task',
      text: 'make it look like the mockup',
      attachments: [{ name: 'mockup.png', mediaType: 'image/png', base64: png.toString('base64') }],
    })
    expect(queued.queued).toBe(true)
    // Nothing of it is in the project while it waits (the running task's snapshots would take it).
    expect(existsSync(join(chat.dir, '.ralph', 'attachments'))).toBe(false)
    release()
    await expect
      .poll(() => chat.seen.filter((e) => e.name === 'loop.finished').map((e) => e.payload), {
        timeout: 60_000,
      })
      .toEqual([
        expect.objectContaining({ status: 'complete', task: 1 }),
        expect.objectContaining({ status: 'complete', task: 2 }),
      ])
    expect(readFileSync(join(chat.dir, '.ralph', 'attachments', 'task-2', 'mockup.png'))).toEqual(png)
    expect(existsSync(join(chat.dir, '.ralph', 'attachments', 'task-1'))).toBe(false)
    expect(await call('tasks.attachments', { projectId: chat.projectId, task: 2 })).toEqual([
      { name: 'mockup.png', mediaType: 'image/png', bytes: png.length },
    ])
    const bodies = JSON.stringify(chat.llm.requests.map((r) => r.body))
    expect(bodies).toContain(`data:image/png;base64,${png.toString('base64')}`)
  })
})
