import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { hostname } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { SnapshotEngine } from '../../../src/main/snapshots'
import { RunsRepo } from '../../../src/main/store/runsRepo'
import { databaseFile } from '../../../src/main/workspace/appPaths'
import { startFakeLlmServer, type FakeLlmServer } from '../../fixtures/fakeLlmServer'
import { makeCore } from '../../helpers/core'
import { makeTempDir } from '../../helpers/tempDir'
import { parsed, say } from './harness'
import { memoryLogger } from '../../../src/main/workspace/logFile'

const taskChild = fileURLToPath(new URL('./taskChild.ts', import.meta.url))
const BUSY = 'a task is running: stop it first'

/** Polls until `cond` holds: CI is a loaded box, so generous budgets and never a fixed sleep. */
async function waitFor(cond: () => boolean | Promise<boolean>, what: string, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 25))
  }
}

let llm: FakeLlmServer
let project: ReturnType<typeof makeTempDir>
let env: NodeJS.ProcessEnv
let host: ReturnType<typeof makeCore>
let children: ChildProcess[] = []

beforeAll(async () => {
  llm = await startFakeLlmServer()
})
afterAll(() => llm.close())
beforeEach(() => {
  llm.requests.length = 0
  llm.fallback = say('Nothing more.')
  project = makeTempDir('ralph-project-')
  writeFileSync(join(project.path, 'a.txt'), 'one\n')
  env = { RALPH_PROVIDER: 'openai-compatible', RALPH_MODEL: 'fake-model', RALPH_BASE_URL: llm.baseUrl }
  host = makeCore(env)
})
afterEach(async () => {
  for (const c of children) c.kill('SIGKILL')
  children = []
  await host.cleanup()
  project.cleanup()
})

async function call(name: string, input: unknown) {
  return host.core.dispatch(name, input)
}

async function value<T>(name: string, input: unknown): Promise<T> {
  const res = await call(name, input)
  if (!res.ok) throw new Error(`${name}: ${res.error.kind}: ${res.error.message}`)
  return res.value as T
}

async function openProject(): Promise<number> {
  return (await value<{ id: number }>('projects.open', { path: project.path })).id
}

const chatCalls = () => llm.requests.filter((r) => r.path === '/v1/chat/completions').length
const statusTxt = () => readFileSync(join(project.path, '.ralph/status.txt'), 'utf8').trim()

/** Runs a task in a second process (like `ralph run`) whose model hangs in iteration 1. */
async function runInOtherProcess(): Promise<{ proc: ChildProcess; closed: Promise<void> }> {
  llm.enqueue(parsed({ type: 'fresh' }), { kind: 'hang' })
  const proc = spawn(
    process.execPath,
    ['--import', 'tsx', taskChild, project.path, databaseFile(host.home), llm.baseUrl, 'slow task'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  )
  children.push(proc)
  let out = ''
  proc.stdout!.on('data', (b: Buffer) => (out += b.toString()))
  const closed = new Promise<void>((resolve) => proc.on('close', () => resolve()))
  await waitFor(() => out.includes('"iteration.started"') && chatCalls() >= 2, 'the other process to run')
  return { proc, closed }
}

describe('one lock for the loop and snapshot writes', () => {
  it('refuses rollback, undo, save and prune from the API while the host runs a task; the loop snapshots itself', async () => {
    const projectId = await openProject()
    const before = await value<{ tag: string }>('snapshots.save', { projectId, message: 'before' })
    llm.enqueue(parsed({ type: 'fresh' }), { kind: 'hang' })
    await value('tasks.start', { projectId, message: 'build it' })
    await waitFor(() => chatCalls() >= 2, 'the task to reach iteration 1')

    for (const [name, input] of [
      ['snapshots.rollback', { projectId, tag: before.tag }],
      ['snapshots.undo', { projectId }],
      ['snapshots.save', { projectId }],
      ['snapshots.prune', { projectId, keepLast: 0 }],
    ] as const) {
      const res = await call(name, input)
      expect(res, name).toMatchObject({ ok: false, error: { kind: 'busy', message: BUSY } })
    }
    expect(statusTxt()).toBe('running')
    // The loop's own pre-task snapshot was taken while it held the task lock.
    const list = await value<{ items: { tag: string }[] }>('snapshots.list', { projectId })
    expect(list.items.map((s) => s.tag)).toContain('task-1-pre')
    expect(await value('tasks.running', { projectId })).toEqual({ running: true })

    expect(await value('tasks.stop', { projectId })).toEqual({ stopped: true })
    const rolled = await value<{ target: string }>('snapshots.rollback', { projectId, tag: before.tag })
    expect(rolled.target).toBe(before.tag)
  }, 120_000)

  it('answers tasks.start busy at once while another process runs a task, and refuses its snapshot writes', async () => {
    const projectId = await openProject()
    const saved = await new SnapshotEngine({ projectDir: project.path, logger: memoryLogger() }).save({
      kind: 'manual',
    })
    const other = await runInOtherProcess()

    const started = await call('tasks.start', { projectId, message: 'second task' })
    expect(started).toMatchObject({ ok: false, error: { kind: 'busy' } })
    if (!started.ok) expect(started.error.message).toContain('Another Ralph loop is already running')
    expect(await call('snapshots.rollback', { projectId, tag: saved.tag })).toMatchObject({
      ok: false,
      error: { kind: 'busy', message: BUSY },
    })
    await expect(
      new SnapshotEngine({ projectDir: project.path, logger: memoryLogger() }).save({ kind: 'manual' }),
    ).rejects.toThrow(BUSY)
    expect(await value('tasks.running', { projectId })).toEqual({ running: true })
    other.proc.kill('SIGKILL')
    await other.closed
  }, 120_000)
})

describe('crash recovery', () => {
  it('a task whose process was killed becomes interrupted in status.txt and SQLite, and the project is free again', async () => {
    const projectId = await openProject()
    const saved = await new SnapshotEngine({ projectDir: project.path, logger: memoryLogger() }).save({
      kind: 'manual',
    })
    const other = await runInOtherProcess()
    other.proc.kill('SIGKILL')
    await other.closed

    const runs = () => host.core.services.db.prepare('SELECT status FROM runs').all() as { status: string }[]
    expect(statusTxt()).toBe('running')
    expect(runs()).toEqual([{ status: 'running' }])

    expect(await value('tasks.running', { projectId })).toEqual({ running: false })
    expect(statusTxt()).toBe('interrupted')
    expect(runs()).toEqual([{ status: 'interrupted' }])
    expect(await value('projects.get', { projectId })).toMatchObject({ state: { status: 'interrupted' } })
    await value('snapshots.rollback', { projectId, tag: saved.tag })
  }, 120_000)

  it('a task started after a crash marks the dead one interrupted and names it so in the history', async () => {
    const projectId = await openProject()
    const other = await runInOtherProcess()
    other.proc.kill('SIGKILL')
    await other.closed

    llm.enqueue(parsed({ type: 'fresh', title: 'Second' }), { kind: 'hang' })
    await value('tasks.start', { projectId, message: 'second task' })
    await waitFor(() => chatCalls() >= 4, 'the second task to reach iteration 1')
    const runs = host.core.services.db.prepare('SELECT task, status FROM runs ORDER BY id').all()
    expect(runs).toEqual([
      { task: 1, status: 'interrupted' },
      { task: 2, status: 'running' },
    ])
    expect(readFileSync(join(project.path, '.ralph/task-history.md'), 'utf8')).toContain(
      '- Task 1 (interrupted)',
    )
    await value('tasks.stop', { projectId })
  }, 120_000)

  it('snapshots.status marks a task interrupted whose lock names a dead process', async () => {
    const projectId = await openProject()
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
      encoding: 'utf8',
    })
    const lock = { pid: Number(dead.stdout), host: hostname(), op: 'ralph run', startedAt: Date.now() }
    writeFileSync(join(project.path, '.ralph/loop.lock'), JSON.stringify(lock))
    writeFileSync(join(project.path, '.ralph/status.txt'), 'running\n')
    const runs = new RunsRepo(host.core.services.db)
    const runId = runs.startRun({ projectId, projectPath: project.path, task: 1, message: 'm' })

    await value('snapshots.status', { projectId })
    expect(statusTxt()).toBe('interrupted')
    expect(runs.getRun(runId)?.status).toBe('interrupted')
  }, 60_000)
})
