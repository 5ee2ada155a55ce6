import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { EventEnvelope } from '../../../src/shared/api/contract'
import { startFakeLlmServer, type FakeLlmServer } from '../../fixtures/fakeLlmServer'
import { makeCore } from '../../helpers/core'
import { makeTempDir } from '../../helpers/tempDir'
import { parsed, say, tools } from './harness'

// The app hosts start tasks through the contract; progress arrives as contract events on the same bus that
// the IPC binding and the WebSocket bridge forward.
describe('tasks through the contract', () => {
  let llm: FakeLlmServer
  let env: ReturnType<typeof makeCore>
  let work: ReturnType<typeof makeTempDir>
  let projectId: number
  let seen: EventEnvelope[]

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
    const dir = join(work.path, 'app')
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

  it('runs a task in the background and streams loop events', async () => {
    // An edited price table (USD per 1M tokens) drives the cost estimate.
    env.core.services.settings.set('llm.prices', { 'fake-model': { input: 1_000_000, output: 2_000_000 } })
    llm.enqueue(
      parsed({ type: 'bugfix' }),
      tools(
        ['write_file', { path: 'x.txt', content: 'x' }],
        ['mark_complete', { summary: 'Wrote x.txt as asked.' }],
      ),
    )
    const done = finished()
    expect(await env.core.dispatch('tasks.start', { projectId, message: 'write x.txt' })).toEqual({
      ok: true,
      value: { started: true },
    })
    expect(await env.core.dispatch('tasks.start', { projectId, message: 'again' })).toMatchObject({
      ok: false,
      error: { kind: 'busy' },
    })
    const end = await done
    expect(end.payload).toMatchObject({ projectId, task: 1, status: 'complete' })
    const loopTypes = seen
      .filter((e) => e.name === 'loop.event')
      .map((e) => (e.payload as { event: { type: string } }).event.type)
    expect(loopTypes[0]).toBe('task.started')
    expect(loopTypes.at(-1)).toBe('task.completed')
    // The fake server reports 10 input and 5 output tokens per call: parse + one iteration turn.
    const completed = seen
      .map((e) => (e.payload as { event?: { type: string; costUsd?: number } }).event)
      .find((e) => e?.type === 'task.completed')
    expect(completed?.costUsd).toBe(2 * (10 * 1 + 5 * 2))
    expect(await env.core.dispatch('tasks.running', { projectId })).toEqual({
      ok: true,
      value: { running: false },
    })
  })

  it('stops a running task', async () => {
    llm.enqueue(parsed({ type: 'bugfix' }), { kind: 'hang' })
    const done = finished()
    await env.core.dispatch('tasks.start', { projectId, message: 'slow' })
    await new Promise<void>((resolve) => {
      const off = env.core.events.subscribe((e) => {
        if (
          e.name === 'loop.event' &&
          (e.payload as { event: { type: string } }).event.type === 'iteration.started'
        ) {
          off()
          resolve()
        }
      })
    })
    expect(await env.core.dispatch('tasks.stop', { projectId })).toEqual({
      ok: true,
      value: { stopped: true },
    })
    expect((await done).payload).toMatchObject({ status: 'stopped' })
  })

  it('reports a missing provider before starting anything', async () => {
    const fresh = makeCore()
    const dir = join(work.path, 'other')
    mkdirSync(dir)
    const opened = await fresh.core.dispatch('projects.open', { path: dir })
    const id = (opened as { value: { id: number } }).value.id
    const result = await fresh.core.dispatch('tasks.start', { projectId: id, message: 'go' })
    expect(result).toMatchObject({
      ok: false,
      error: { kind: 'config', message: expect.stringContaining('No LLM provider is configured') },
    })
    await fresh.cleanup()
  })
})
