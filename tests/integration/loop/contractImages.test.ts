// tasks.start with images (issue 27): checked before anything starts, stored under .ralph/attachments/task-N/, and
// sent with the task's iterations (here to a chat-completions server, as `image_url` parts).
import { existsSync, mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { EventEnvelope } from '../../../src/shared/api/contract'
import { startFakeLlmServer, type FakeLlmServer } from '../../fixtures/fakeLlmServer'
import { makeCore } from '../../helpers/core'
import { pngOfSize, solidPng } from '../../helpers/png'
import { makeTempDir } from '../../helpers/tempDir'
import { wireImages } from '../providers/wireImages'
import { parsed, say, tools } from './harness'

describe('tasks.start with images', () => {
  let llm: FakeLlmServer
  let env: ReturnType<typeof makeCore>
  let work: ReturnType<typeof makeTempDir>
  let projectId: number
  let dir: string

  beforeAll(async () => {
    llm = await startFakeLlmServer()
  })
  afterAll(() => llm.close())
  beforeEach(async () => {
    llm.requests.length = 0
    llm.fallback = say('Nothing more.')
    env = makeCore()
    work = makeTempDir()
    dir = join(work.path, 'app')
    mkdirSync(dir)
    const opened = await env.core.dispatch('projects.open', { path: dir })
    projectId = (opened as { value: { id: number } }).value.id
    await env.core.dispatch('settings.setProvider', {
      settings: { provider: 'openai-compatible', model: 'fake-model', baseUrl: llm.baseUrl },
    })
  })
  afterEach(async () => {
    await env.cleanup()
    work.cleanup()
  })

  const finished = () =>
    new Promise<EventEnvelope>((resolve) => {
      const off = env.core.events.subscribe((e) => {
        if (e.name === 'loop.finished') {
          off()
          resolve(e)
        }
      })
    })

  it('stores the images with the task and sends them with its iterations', async () => {
    const png = solidPng(1, 2)
    llm.enqueue(
      parsed({ type: 'bugfix' }),
      tools(['write_file', { path: 'x.txt', content: 'x' }], ['mark_complete', { summary: 'Wrote x.txt.' }]),
    )
    const done = finished()
    const started = await env.core.dispatch('tasks.start', {
      projectId,
      message: 'make it look like the mockup',
      attachments: [{ name: 'mockup.png', mediaType: 'image/png', base64: png.toString('base64') }],
    })
    expect(started).toEqual({ ok: true, value: { started: true } })
    expect((await done).payload).toMatchObject({ projectId, task: 1, status: 'complete' })
    expect(readFileSync(join(dir, '.ralph/attachments/task-1/mockup.png')).equals(png)).toBe(true)
    const iteration = llm.requests[1]!.body as Record<string, unknown>
    expect(wireImages('openai-compatible', iteration)).toEqual([
      { mediaType: 'image/png', base64: png.toString('base64') },
    ])
    expect(await env.core.dispatch('tasks.attachments', { projectId, task: 1 })).toEqual({
      ok: true,
      value: [{ name: 'mockup.png', mediaType: 'image/png', bytes: png.length }],
    })
  })

  it('refuses a text file named .png and an image over 5 MB with the reason, starting nothing', async () => {
    const fake = await env.core.dispatch('tasks.start', {
      projectId,
      message: 'look at this',
      attachments: [
        { name: 'notes.png', mediaType: 'image/png', base64: Buffer.from('hello').toString('base64') },
      ],
    })
    expect(fake).toMatchObject({
      ok: false,
      error: {
        kind: 'invalid-input',
        message: expect.stringContaining('notes.png is not a PNG, JPEG, WebP or GIF'),
      },
    })
    const big = await env.core.dispatch('tasks.start', {
      projectId,
      message: 'look at this',
      attachments: [
        { name: 'big.png', mediaType: 'image/png', base64: pngOfSize(6 * 1024 * 1024).toString('base64') },
      ],
    })
    expect(big).toMatchObject({
      ok: false,
      error: {
        kind: 'invalid-input',
        message: expect.stringContaining('An attached image may be at most 5 MB.'),
      },
    })
    expect(llm.requests).toEqual([])
    expect(existsSync(join(dir, '.ralph/attachments'))).toBe(false)
  })
})
