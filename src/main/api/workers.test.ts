import { readFileSync, writeFileSync } from 'node:fs'
import { createServer, type Server, type Socket } from 'node:net'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { openQueueProject, type QueueProject } from '../../../tests/helpers/queueProject'
import type { WorkersCheck, WorkersSettings } from '../../shared/api/workers'
import { defaultWorkersConfig } from '../../shared/workersConfig'
import { firstSentence } from './workers'

/** A port nothing listens on: one a server had, closed again. */
async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

// Settings → Workers on a real core: real SQLite (the vault's names), the real config.json, the real Docker client
// against addresses where no engine answers.
describe('firstSentence', () => {
  it('splits at a full stop before a capital, never inside an address or a version', () => {
    expect(firstSentence('At 127.0.0.1:9 nothing listens. To use it, start it.')).toEqual({
      summary: 'At 127.0.0.1:9 nothing listens.',
      advice: 'To use it, start it.',
    })
    expect(firstSentence('Docker 5.4.2 at unix:///run/docker.sock ran a job in 1 s.')).toEqual({
      summary: 'Docker 5.4.2 at unix:///run/docker.sock ran a job in 1 s.',
      advice: null,
    })
  })
})

describe('workers API', () => {
  let p: QueueProject
  let projectId: number
  const call = <T = unknown>(name: string, input: unknown) => p.call<T>(name, input)
  const configFile = () => join(p.dir, '.ralph', 'config.json')

  beforeEach(async () => {
    p = await openQueueProject()
    projectId = p.projectId
  })
  afterEach(() => p.close())

  it('shows the defaults and the vault’s secret names (never values)', async () => {
    await call('mcp.setSecret', { name: 'GITHUB_TOKEN', value: 'ghp_secretvalue123' })
    await call('mcp.setSecret', { name: 'DB_URL', value: 'postgres://x' })
    const got = await call<WorkersSettings>('workers.get', { projectId })
    expect(got).toEqual({
      config: defaultWorkersConfig,
      problem: null,
      secretNames: ['DB_URL', 'GITHUB_TOKEN'],
    })
    expect(JSON.stringify(got)).not.toContain('ghp_secretvalue123')
  })

  it('writes only "workers", keeping every other field; a bad value is refused and nothing is written', async () => {
    const before = JSON.parse(readFileSync(configFile(), 'utf8')) as Record<string, unknown>
    writeFileSync(
      configFile(),
      JSON.stringify({ ...before, lanes: { parallel: 3 }, custom: { a: [1, 2] } }, null, 2),
    )
    const workers = {
      ...defaultWorkersConfig,
      backend: 'docker',
      dockerHost: 'ssh://me@build-box',
      cpus: 4,
      remoteSecrets: ['GITHUB_TOKEN'],
    }
    const saved = await call<WorkersSettings>('workers.set', { projectId, workers })
    expect(saved.config).toEqual(workers)
    const after = JSON.parse(readFileSync(configFile(), 'utf8')) as Record<string, unknown>
    expect(after).toEqual({ ...before, lanes: { parallel: 3 }, custom: { a: [1, 2] }, workers })
    expect(p.seen.some((e) => e.name === 'settings.changed')).toBe(true)

    const text = readFileSync(configFile(), 'utf8')
    await expect(
      call('workers.set', { projectId, workers: { ...workers, memoryMb: 10 } }),
    ).rejects.toMatchObject({ kind: 'invalid-input', message: expect.stringMatching(/memoryMb/) })
    await expect(
      call('workers.set', { projectId, workers: { ...workers, backend: 'ssh' } }),
    ).rejects.toMatchObject({ kind: 'invalid-input' })
    expect(readFileSync(configFile(), 'utf8')).toBe(text)
  })

  it('shows the defaults and why when the saved "workers" is broken', async () => {
    writeFileSync(configFile(), JSON.stringify({ workers: { backend: 'docker', pids: 1 } }))
    const got = await call<WorkersSettings>('workers.get', { projectId })
    expect(got.config).toEqual(defaultWorkersConfig)
    expect(got.problem).toMatch(/"workers\.pids" in .*config\.json is not valid/)
  })

  it('checks Docker at an address where nothing listens and says so in one sentence', async () => {
    const port = await closedPort()
    const workers = { ...defaultWorkersConfig, backend: 'docker', dockerHost: `tcp://127.0.0.1:${port}` }
    const check = await call<WorkersCheck>('workers.test', { projectId, workers })
    expect(check).toMatchObject({
      backend: 'docker',
      ok: false,
      stopped: false,
      where: `docker: 127.0.0.1:${port}`,
    })
    expect(check.summary).toMatch(
      new RegExp(
        `^The Docker engine at http://127\\.0\\.0\\.1:${port} \\("dockerHost" in Settings → Workers\\) cannot be reached: nothing listens there\\.$`,
      ),
    )
    // One sentence; what to do comes apart.
    expect(check.advice).toMatch(/^To use it, start Docker/)
    // A host the Docker client cannot use at all is said the same way, before anything is contacted.
    const ftp = await call<WorkersCheck>('workers.test', {
      projectId,
      workers: { ...workers, dockerHost: 'ftp://box' },
    })
    expect(ftp).toMatchObject({ ok: false, stopped: false, where: null })
    expect(ftp.summary).toMatch(
      /^The "dockerHost" ftp:\/\/box \(Settings → Workers\) is not an address the Docker backend can use/,
    )
    const local = await call<WorkersCheck>('workers.test', { projectId, workers: defaultWorkersConfig })
    expect(local).toMatchObject({ ok: true, where: 'local' })
  })

  it('stops a check that waits on an engine that never answers', async () => {
    const sockets: Socket[] = []
    const silent: Server = createServer((s) => sockets.push(s))
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
    const { port } = silent.address() as { port: number }
    try {
      const workers = { ...defaultWorkersConfig, backend: 'docker', dockerHost: `tcp://127.0.0.1:${port}` }
      const checking = call<WorkersCheck>('workers.test', { projectId, workers })
      // The engine has the connection (the check is waiting on its answer): now stop it.
      await expect.poll(() => sockets.length, { timeout: 10_000 }).toBeGreaterThan(0)
      await expect(call('workers.test', { projectId, workers })).rejects.toMatchObject({ kind: 'busy' })
      expect(await call('workers.stopTest', { projectId })).toEqual({ stopped: true })
      expect(await checking).toMatchObject({ ok: false, stopped: true, summary: 'The check was stopped.' })
      expect(await call('workers.stopTest', { projectId })).toEqual({ stopped: false })
    } finally {
      for (const s of sockets) s.destroy()
      await new Promise<void>((resolve) => silent.close(() => resolve()))
    }
  })
})
