// The engines.* calls on a real core (what Settings and the project header use): the real CLIs found on the host's
// PATH, the lookup kept for a minute and redone on request, and the project's choice written to .ralph/config.json.
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { EngineLookup } from '../../../src/main/api/engines'
import { createCore, type Core } from '../../../src/main/api/core'
import type { EnginesList } from '../../../src/shared/api/engines'
import { makeTempDir } from '../../helpers/tempDir'

const BIN = resolve(__dirname, '../../../node_modules/.bin')
let home: ReturnType<typeof makeTempDir>
let work: ReturnType<typeof makeTempDir>
let core: Core
let projectId: number
let dir: string
const env: NodeJS.ProcessEnv = {}

async function call<T = unknown>(name: string, input: unknown): Promise<T> {
  const result = await core.dispatch(name, input)
  if (!result.ok) throw Object.assign(new Error(result.error.message), { kind: result.error.kind })
  return result.value as T
}

beforeEach(async () => {
  home = makeTempDir('ralph-home-')
  work = makeTempDir()
  env.PATH = `${BIN}:/usr/bin:/bin`
  core = createCore({ appDataDir: home.path, env, host: { kind: 'web', openedFrom: 'test' } })
  dir = join(work.path, 'app')
  mkdirSync(dir)
  projectId = (await call<{ id: number }>('projects.open', { path: dir })).id
})
afterEach(async () => {
  await core.close()
  home.cleanup()
  work.cleanup()
})

describe('the engines.* calls', () => {
  it('lists the real CLIs with their versions and the project’s engine; a choice is written and announced', async () => {
    const list = await call<EnginesList>('engines.list', { projectId })
    expect(list.installs.map((i) => [i.id, i.label, i.installed, i.supported, i.version])).toEqual([
      ['claude-code', 'Claude Code', true, true, '2.1.328'],
      ['codex', 'Codex', true, true, '0.169.0'],
    ])
    expect(list.installs[0]!.minVersion).toBe('2.0.0')
    expect(list.project).toEqual({ engine: 'built-in', engineModel: null })
    expect((await call<EnginesList>('engines.list', {})).project).toBeNull()

    const seen: unknown[] = []
    core.events.subscribe((e) => seen.push(e))
    const set = await call('engines.setForProject', {
      projectId,
      engine: 'claude-code',
      engineModel: ' sonnet ',
    })
    expect(set).toEqual({ engine: 'claude-code', engineModel: 'sonnet' })
    expect(JSON.parse(readFileSync(join(dir, '.ralph/config.json'), 'utf8'))).toMatchObject({
      engine: 'claude-code',
      engineModel: 'sonnet',
    })
    expect(seen).toContainEqual({ name: 'settings.changed', payload: { key: `engine:${projectId}` } })
    // Left out, the model stays; blank, it goes back to the engine's default.
    expect(await call('engines.setForProject', { projectId, engine: 'codex' })).toEqual({
      engine: 'codex',
      engineModel: 'sonnet',
    })
    expect(await call('engines.setForProject', { projectId, engine: 'codex', engineModel: '' })).toEqual({
      engine: 'codex',
      engineModel: null,
    })
    expect((await call<EnginesList>('engines.list', { projectId })).project).toEqual({
      engine: 'codex',
      engineModel: null,
    })
    expect(await call('engines.project', { projectId })).toEqual({ engine: 'codex', engineModel: null })
    await expect(call('engines.setForProject', { projectId, engine: 'gemini' })).rejects.toMatchObject({
      kind: 'invalid-input',
    })
  }, 60_000)

  it('keeps the lookup for a minute; refresh looks again now', async () => {
    const first = await call<EnginesList>('engines.list', {})
    // The CLIs vanish from PATH: the cached answer stands until asked to look again.
    env.PATH = '/usr/bin:/bin'
    const cached = await call<EnginesList>('engines.list', {})
    expect(cached.checkedAt).toBe(first.checkedAt)
    expect(cached.installs.every((i) => i.installed)).toBe(true)
    const fresh = await call<EnginesList>('engines.list', { refresh: true })
    expect(fresh.installs.map((i) => [i.installed, i.supported])).toEqual([
      [false, false],
      [false, false],
    ])
    expect(fresh.installs[0]!.hint).toContain('npm install -g @anthropic-ai/claude-code')
  }, 60_000)
})

describe('EngineLookup', () => {
  it('asks again once its minute is up, and shares one lookup between concurrent callers', async () => {
    const bin = makeTempDir('ralph-engine-bin-')
    const counter = join(bin.path, 'count')
    writeFileSync(counter, '')
    const claude = join(bin.path, 'claude')
    writeFileSync(claude, `#!/bin/sh\necho x >> ${counter}\necho "2.5.0 (Claude Code)"\n`)
    chmodSync(claude, 0o755)
    let now = 1_000
    const lookup = new EngineLookup(
      () => ({ PATH: bin.path }),
      60_000,
      () => now,
    )
    const calls = () => readFileSync(counter, 'utf8').split('\n').filter(Boolean).length
    try {
      const [a, b] = await Promise.all([lookup.get().installs, lookup.get().installs])
      expect(a).toBe(b)
      expect(a[0]).toMatchObject({ installed: true, version: '2.5.0', supported: true })
      expect(calls()).toBe(1)
      now += 59_999
      await lookup.get().installs
      expect(calls()).toBe(1)
      now += 1
      expect(lookup.get().at).toBe(now)
      await lookup.get().installs
      expect(calls()).toBe(2)
    } finally {
      bin.cleanup()
    }
  })
})
