import { mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { EventEnvelope } from '../../../src/shared/api/contract'
import { startFakeLlmServer, type FakeLlmServer } from '../../fixtures/fakeLlmServer'
import { makeCore } from '../../helpers/core'
import { makeTempDir } from '../../helpers/tempDir'
import { parsed, say, tools } from './harness'

// tasks.start never takes a message as the answer to a waiting task's question unless the call says so (#26).
describe('tasks.start while a task waits for an answer', () => {
  let llm: FakeLlmServer
  let env: ReturnType<typeof makeCore>
  let work: ReturnType<typeof makeTempDir>
  let projectId: number
  let dir: string
  let seen: EventEnvelope[]

  const finishedCount = () => seen.filter((e) => e.name === 'loop.finished').length
  const lastFinished = () =>
    seen.filter((e) => e.name === 'loop.finished').at(-1)?.payload as { status: string; task: number }
  const start = (input: Record<string, unknown>) => env.core.dispatch('tasks.start', { projectId, ...input })

  beforeAll(async () => {
    llm = await startFakeLlmServer()
  })
  afterAll(() => llm.close())
  beforeEach(async () => {
    llm.requests.length = 0
    llm.fallback = say('Nothing more.')
    env = makeCore()
    work = makeTempDir()
    seen = []
    env.core.events.subscribe((e) => seen.push(e))
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

  it('refuses a message that does not say it answers, and continues the task with one that does', async () => {
    llm.enqueue(
      parsed({ type: 'needs-clarification', title: 'Drinks', clarification: 'Two new, or rename two?' }),
    )
    expect(await start({ message: 'add night drinks' })).toMatchObject({ ok: true })
    await expect.poll(finishedCount, { timeout: 30_000 }).toBe(1)
    expect(lastFinished()).toMatchObject({ task: 1, status: 'needs-clarification' })

    // A plain message is refused, not taken as the answer; nothing is asked of the model.
    const requests = llm.requests.length
    const refused = await start({ message: 'Add a footer' })
    expect(refused).toMatchObject({
      ok: false,
      error: { kind: 'busy', message: expect.stringContaining('answering: 1') },
    })
    // Saying it answers a task that does not wait is refused too.
    expect(await start({ message: 'Two new', answering: 2 })).toMatchObject({
      ok: false,
      error: { kind: 'busy' },
    })
    expect(llm.requests.length).toBe(requests)

    // With answering, the same task continues (its number kept), the answer in its request.
    llm.enqueue(
      parsed({ type: 'bugfix', title: 'Drinks' }),
      tools(
        ['write_file', { path: 'drinks.txt', content: 'two new\n' }],
        ['mark_complete', { summary: 'Added.' }],
      ),
    )
    expect(await start({ message: 'Two new', answering: 1 })).toMatchObject({ ok: true })
    await expect.poll(finishedCount, { timeout: 30_000 }).toBe(2)
    expect(lastFinished()).toMatchObject({ task: 1 })
    expect(JSON.stringify(llm.requests.slice(requests))).toContain(
      "The user's answer to the clarification question: Two new",
    )
    expect(readFileSync(join(dir, 'drinks.txt'), 'utf8')).toBe('two new\n')

    // No task waits now: an `answering` call is refused, a plain one starts task 2.
    expect(await start({ message: 'late answer', answering: 1 })).toMatchObject({
      ok: false,
      error: { kind: 'not-found' },
    })
    expect(await start({ message: 'next thing' })).toMatchObject({ ok: true })
    await expect.poll(finishedCount, { timeout: 30_000 }).toBe(3)
    expect(lastFinished()).toMatchObject({ task: 2 })
  }, 90_000)
})
