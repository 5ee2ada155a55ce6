import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { makeCore } from '../../../tests/helpers/core'
import { makeTempDir } from '../../../tests/helpers/tempDir'
import { memoryLogger } from '../workspace/logFile'
import { createDispatcher, failureLevel } from './dispatch'
import type { ApiContext } from './types'

describe('contract dispatch', () => {
  let env: ReturnType<typeof makeCore>
  let work: ReturnType<typeof makeTempDir>
  beforeEach(() => {
    env = makeCore()
    work = makeTempDir()
  })
  afterEach(async () => {
    await env.cleanup()
    work.cleanup()
  })

  it('rejects an unknown call by name', async () => {
    const result = await env.core.dispatch('projects.delete_everything', {})
    expect(result).toEqual({
      ok: false,
      error: { kind: 'invalid-input', message: 'Unknown call "projects.delete_everything".' },
    })
  })

  it.each([
    ['a string id', 'projects.get', { projectId: '1' }, /projectId/],
    ['a negative id', 'projects.get', { projectId: -4 }, /projectId/],
    ['an extra key', 'projects.get', { projectId: 1, sql: 'DROP TABLE projects' }, /sql/],
    ['an empty path', 'projects.open', { path: '   ' }, /Enter the path of a folder/],
    ['no input object', 'projects.open', 'oops', /expected object/i],
    [
      'an unknown provider',
      'settings.setProvider',
      { settings: { provider: 'acme', model: 'x' } },
      /Unknown provider "acme"/,
    ],
    [
      'an empty model',
      'settings.setProvider',
      { settings: { provider: 'openai', model: ' ' } },
      /Model must not be empty/,
    ],
    [
      'a malformed base URL',
      'settings.testConnection',
      { settings: { provider: 'openai', model: 'm', baseUrl: 'ftp:/x' } },
      /Base URL must be/,
    ],
    [
      'a compatible provider without URL',
      'settings.setProvider',
      { settings: { provider: 'openai-compatible', model: 'm' } },
      /needs a base URL/,
    ],
  ])('rejects %s with a message that names the field', async (_label, name, input, pattern) => {
    const result = await env.core.dispatch(name, input)
    expect(result.ok).toBe(false)
    if (!result.ok) {
      expect(result.error.kind).toBe('invalid-input')
      expect(result.error.message).toMatch(pattern)
    }
  })

  it('runs a valid call and returns data that matches the output schema', async () => {
    const dir = join(work.path, 'app')
    mkdirSync(dir)
    const opened = await env.core.dispatch('projects.open', { path: dir })
    expect(opened.ok).toBe(true)
    const list = await env.core.dispatch('projects.list', {})
    expect(list).toMatchObject({ ok: true, value: [{ path: dir, name: 'app' }] })
  })

  it('turns a missing project into a not-found error, not a crash', async () => {
    expect(await env.core.dispatch('projects.get', { projectId: 999 })).toEqual({
      ok: false,
      error: { kind: 'not-found', message: 'No project with id 999. Open the folder again.' },
    })
  })

  it('publishes events to subscribers, validated against the contract', async () => {
    const seen: unknown[] = []
    env.core.events.subscribe((e) => seen.push(e))
    const dir = join(work.path, 'evented')
    mkdirSync(dir)
    const opened = await env.core.dispatch('projects.open', { path: dir })
    expect(seen).toEqual([
      { name: 'projects.changed', payload: { projectId: (opened as { value: { id: number } }).value.id } },
    ])
    // The bus is typed by the contract; the runtime check still catches what a cast lets through.
    // @ts-expect-error a payload of the wrong shape
    expect(() => env.core.events.emit('projects.changed', { projectId: 'nope' })).toThrow()
    // @ts-expect-error an event the contract does not have
    expect(() => env.core.events.emit('no.such.event', {})).toThrow(/Unknown event/)
  })
})

describe('failed calls in the log', () => {
  const ctx = {} as ApiContext

  it('logs a refusal with its call and kind as a warning, and answers the client as before', async () => {
    const logger = memoryLogger()
    const env = makeCore({}, { logger })
    try {
      const result = await env.core.dispatch('projects.get', { projectId: 999 })
      expect(result).toEqual({
        ok: false,
        error: { kind: 'not-found', message: 'No project with id 999. Open the folder again.' },
      })
      expect(logger.lines).toEqual([
        'WARN call projects.get failed (not-found): No project with id 999. Open the folder again.',
      ])
      await env.core.dispatch('projects.list', {})
      expect(logger.lines).toHaveLength(1)
    } finally {
      await env.cleanup()
    }
  })

  it('logs a bug or a failure of the world as an error, with the error itself', async () => {
    const logger = memoryLogger()
    const dispatch = createDispatcher(
      {
        'projects.list': async () => {
          throw new Error('disk on fire')
        },
        'app.info': async () => ({ nonsense: true }) as never,
      },
      ctx,
      logger,
    )
    expect(await dispatch('projects.list', {})).toEqual({
      ok: false,
      error: { kind: 'internal', message: 'disk on fire' },
    })
    expect(await dispatch('app.info', {})).toMatchObject({ ok: false, error: { kind: 'internal' } })
    expect(logger.lines[0]).toBe(
      'ERROR call projects.list failed (internal): disk on fire: Error: disk on fire',
    )
    expect(logger.lines[1]).toMatch(
      /^ERROR call app\.info failed \(internal\): "app\.info" produced an invalid result/,
    )
  })

  it('sorts the kinds: expected refusals warn, the rest are errors', () => {
    expect(failureLevel('invalid-input')).toBe('warn')
    expect(failureLevel('busy')).toBe('warn')
    expect(failureLevel('internal')).toBe('error')
    expect(failureLevel('store')).toBe('error')
    expect(failureLevel('provider')).toBe('error')
  })
})

describe('a repeated mutation while the first runs', () => {
  const ctx = {} as ApiContext
  const rollbackOutput = { restoredTag: 'x' } as never

  it('is refused as busy, while a different input or a later repeat runs', async () => {
    let release: () => void = () => undefined
    const gate = new Promise<void>((resolve) => (release = resolve))
    const runs: string[] = []
    const dispatch = createDispatcher(
      {
        'snapshots.rollback': async (input) => {
          runs.push(input.tag)
          await gate
          return rollbackOutput
        },
      },
      ctx,
      memoryLogger(),
    )
    const first = dispatch('snapshots.rollback', { projectId: 1, tag: 'task-1-pre' })
    const second = await dispatch('snapshots.rollback', { projectId: 1, tag: 'task-1-pre' })
    expect(second).toMatchObject({ ok: false, error: { kind: 'busy' } })
    if (!second.ok) expect(second.error.message).toMatch(/already running; it was not started twice/)
    const other = dispatch('snapshots.rollback', { projectId: 1, tag: 'task-2-pre' })
    release()
    await Promise.all([first, other])
    expect(runs).toEqual(['task-1-pre', 'task-2-pre'])
    // Settled: the same call may run again.
    await dispatch('snapshots.rollback', { projectId: 1, tag: 'task-1-pre' })
    expect(runs).toEqual(['task-1-pre', 'task-2-pre', 'task-1-pre'])
  })

  it('does not hold back reads', async () => {
    let calls = 0
    const dispatch = createDispatcher(
      {
        'projects.list': async () => {
          calls++
          await new Promise((r) => setImmediate(r))
          return []
        },
      },
      ctx,
      memoryLogger(),
    )
    const results = await Promise.all([dispatch('projects.list', {}), dispatch('projects.list', {})])
    expect(results.every((r) => r.ok)).toBe(true)
    expect(calls).toBe(2)
  })
})
