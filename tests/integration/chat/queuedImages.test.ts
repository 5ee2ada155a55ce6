import { existsSync, mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createCore, type Core } from '../../../src/main/api/core'
import type { EventEnvelope } from '../../../src/shared/api/contract'
import { startFakeLlmServer, type FakeLlmServer } from '../../fixtures/fakeLlmServer'
import { solidPng } from '../../helpers/png'
import { makeTempDir } from '../../helpers/tempDir'
import { parsed, say, tools } from '../loop/harness'

// chat.send's images through the contract, on a real core: a Task message sent while a task runs is queued with
// its images, and they reach its task (stored under .ralph/attachments/task-N/, sent as image_url parts).
describe('chat.send with images', { timeout: 120_000 }, () => {
  let llm: FakeLlmServer
  let home: ReturnType<typeof makeTempDir>
  let work: ReturnType<typeof makeTempDir>
  let core: Core
  let projectId: number
  let dir: string
  let seen: EventEnvelope[]

  async function call<T = unknown>(name: string, input: unknown): Promise<T> {
    const result = await core.dispatch(name, input)
    if (!result.ok) throw Object.assign(new Error(result.error.message), { kind: result.error.kind })
    return result.value as T
  }

  beforeAll(async () => {
    llm = await startFakeLlmServer()
  })
  afterAll(() => llm.close())
  beforeEach(async () => {
    llm.requests.length = 0
    llm.fallback = say('Nothing more.')
    home = makeTempDir('ralph-home-')
    work = makeTempDir()
    seen = []
    core = createCore({ appDataDir: home.path, env: {}, host: { kind: 'web', openedFrom: 'test' } })
    core.events.subscribe((e) => seen.push(e))
    dir = join(work.path, 'app')
    mkdirSync(dir)
    projectId = (await call<{ id: number }>('projects.open', { path: dir })).id
    await call('settings.setProvider', {
      settings: { provider: 'openai-compatible', model: 'fake-model', baseUrl: llm.baseUrl },
    })
  })
  afterEach(async () => {
    await core.close()
    home.cleanup()
    work.cleanup()
  })

  it('keeps a queued message’s images until its task starts, then stores and sends them', async () => {
    let release!: () => void
    const held = new Promise<void>((resolve) => (release = resolve))
    llm.enqueue(
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
    await call('chat.send', { projectId, mode: 'task', text: 'write a.txt' })
    const queued = await call<{ queued: boolean }>('chat.send', {
      projectId,
      mode: 'task',
      text: 'make it look like the mockup',
      attachments: [{ name: 'mockup.png', mediaType: 'image/png', base64: png.toString('base64') }],
    })
    expect(queued.queued).toBe(true)
    // Nothing of it is in the project while it waits (the running task's snapshots would take it).
    expect(existsSync(join(dir, '.ralph', 'attachments'))).toBe(false)
    release()
    await expect
      .poll(() => seen.filter((e) => e.name === 'loop.finished').map((e) => e.payload), { timeout: 60_000 })
      .toEqual([
        expect.objectContaining({ status: 'complete', task: 1 }),
        expect.objectContaining({ status: 'complete', task: 2 }),
      ])
    expect(readFileSync(join(dir, '.ralph', 'attachments', 'task-2', 'mockup.png'))).toEqual(png)
    expect(existsSync(join(dir, '.ralph', 'attachments', 'task-1'))).toBe(false)
    expect(await call('tasks.attachments', { projectId, task: 2 })).toEqual([
      { name: 'mockup.png', mediaType: 'image/png', bytes: png.length },
    ])
    const bodies = JSON.stringify(llm.requests.map((r) => r.body))
    expect(bodies).toContain(`data:image/png;base64,${png.toString('base64')}`)
  })
})
