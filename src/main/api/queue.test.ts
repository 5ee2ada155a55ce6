import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import type { BuildBudgetStatus } from '../../shared/api/queue'
import type { MutationResult, QueueView } from '../../shared/queue'
import type { BuildProgress, QueueBuildEvent, Verification } from '../../shared/queueBuild'
import { startFakeLlmServer, type FakeLlmServer } from '../../../tests/fixtures/fakeLlmServer'
import { parsed, say, tools } from '../../../tests/integration/loop/harness'
import { openQueueProject, type QueueProject } from '../../../tests/helpers/queueProject'
import { MAX_BUILD_LANES } from '../../shared/buildLanes'
import { MAX_PARALLEL } from '../lanes'
import { addTask } from '../queue'
import { FileLock } from '../snapshots/lock'
import { taskLockFile } from '../snapshots/taskLock'
import { memoryLogger } from '../workspace/logFile'

/** The queue's changes in these tests: failures they survive are kept in memory. */
const options = { logger: memoryLogger() }

// The Queue panel's calls on a real core: real SQLite, real files, the real history ref.
describe('queue API', () => {
  let p: QueueProject
  let projectId: number
  const call = <T = unknown>(name: string, input: unknown) => p.call<T>(name, input)
  const changed = () => p.seen.filter((e) => e.name === 'queue.changed').map((e) => e.payload)

  beforeEach(async () => {
    p = await openQueueProject()
    projectId = p.projectId
  })
  afterEach(() => p.close())

  it('adds and reorders through the use-cases, announcing each change; refusals change and announce nothing', async () => {
    expect((await call<QueueView>('queue.state', { projectId })).stage).toBe('PLAN')
    const a = await call<MutationResult>('queue.addTask', {
      projectId,
      name: 'grid',
      accept: ['DET: npm test'],
      spec: 'spec.md',
    })
    const b = await call<MutationResult>('queue.addTask', { projectId, name: 'cards', deps: [a.ids[0]] })
    expect(b.state.order).toEqual([a.ids[0], b.ids[0]])
    await expect(call('queue.reorder', { projectId, id: b.ids[0], direction: 'up' })).rejects.toMatchObject({
      kind: 'invalid-input',
      message: expect.stringMatching(/depends on/),
    })
    const c = await call<MutationResult>('queue.addTask', { projectId, name: 'copy', priority: 'low' })
    const moved = await call<MutationResult>('queue.reorder', { projectId, id: c.ids[0], direction: 'up' })
    expect(moved.state.order).toEqual([a.ids[0], c.ids[0], b.ids[0]])
    expect(changed()).toEqual([a, b, c, moved].map((r) => ({ projectId, commit: r.commit })))

    await expect(call('queue.reject', { projectId, id: a.ids[0], reason: '  ' })).rejects.toMatchObject({
      kind: 'invalid-input',
    })
    await expect(call('queue.accept', { projectId, ids: [a.ids[0]] })).rejects.toThrow(/still pending/)
    expect(changed()).toHaveLength(4)
  })

  it('reads a change made outside the API (the CLI, the build) on the next queue.state', async () => {
    await call('queue.addTask', { projectId, name: 'first', spec: 'spec.md' })
    await addTask({ projectDir: p.dir, name: 'from outside', options })
    const state = await call<QueueView>('queue.state', { projectId })
    expect(state.tasks.map((t) => t.name)).toEqual(['first', 'from outside'])
    expect(await call('queue.notifications', { projectId })).toEqual({ items: [], total: 0 })
  })
})

// The Build controls' Lanes (#38): the contract's bounds, the project's default and a broken config, before any
// build starts (the parallel build itself: tests/e2e/lanes.test.ts).
describe('queue API: Lanes', () => {
  let p: QueueProject
  let projectId: number
  const call = <T = unknown>(name: string, input: unknown) => p.call<T>(name, input)
  const setLanes = (lanes: unknown) => {
    const file = join(p.dir, '.ralph', 'config.json')
    const config = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>
    writeFileSync(file, JSON.stringify({ ...config, lanes }))
  }

  beforeEach(async () => {
    p = await openQueueProject()
    projectId = p.projectId
    await call('queue.addTask', { projectId, name: 'grid', spec: 'spec.md' })
  })
  afterEach(() => p.close())

  it('refuses Lanes outside 1–8 or not a whole number, saying what it takes; nothing starts', async () => {
    expect(MAX_BUILD_LANES).toBe(MAX_PARALLEL)
    for (const parallel of [0, 9, 2.5, '4'])
      await expect(call('queue.build', { projectId, parallel })).rejects.toMatchObject({
        kind: 'invalid-input',
        message: expect.stringContaining(
          'Lanes is how many tasks build at once: a whole number from 1 to 8.',
        ),
      })
    expect(await call('queue.buildStatus', { projectId })).toMatchObject({ running: false, result: null })
  })

  it('starts from the project\'s "lanes.parallel"; a broken one is said, and refuses a build without a choice', async () => {
    expect(await call('queue.buildDefaults', { projectId })).toEqual({
      parallel: 1,
      maxParallel: 8,
      workers: 'local',
      problem: null,
    })
    setLanes({ parallel: 3 })
    expect(await call('queue.buildDefaults', { projectId })).toMatchObject({ parallel: 3, problem: null })
    setLanes({ parallel: 12 })
    const broken = await call<{ parallel: number; problem: string }>('queue.buildDefaults', { projectId })
    expect(broken.parallel).toBe(1)
    expect(broken.problem).toMatch(/"lanes\.parallel" in .*config\.json is not valid/)
    await expect(call('queue.build', { projectId })).rejects.toMatchObject({
      kind: 'config',
      message: broken.problem,
    })
    expect(await call('queue.buildStatus', { projectId })).toMatchObject({ running: false, result: null })
  })

  it("takes a Workers choice of local, docker or kubernetes, says so for anything else, and reads the project's", async () => {
    for (const workers of ['ssh', '', 3])
      await expect(call('queue.build', { projectId, workers })).rejects.toMatchObject({
        kind: 'invalid-input',
        message: expect.stringContaining(
          "Workers is where each lane's task runs: local, docker, kubernetes.",
        ),
      })
    const file = join(p.dir, '.ralph', 'config.json')
    const config = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>
    writeFileSync(file, JSON.stringify({ ...config, workers: { backend: 'docker' } }))
    expect(await call('queue.buildDefaults', { projectId })).toMatchObject({
      workers: 'docker',
      problem: null,
    })
    writeFileSync(file, JSON.stringify({ ...config, workers: { backend: 'docker', cpus: -1 } }))
    const broken = await call<{ workers: string; problem: string }>('queue.buildDefaults', { projectId })
    expect(broken).toMatchObject({
      workers: 'local',
      problem: expect.stringMatching(/"workers\.cpus" in .*config\.json/),
    })
    // A broken "workers" is the build's error too, even when this build chooses local: the rest of it is read.
    await expect(call('queue.build', { projectId, workers: 'local' })).rejects.toMatchObject({
      kind: 'config',
      message: broken.problem,
    })
    expect(await call('queue.buildStatus', { projectId })).toMatchObject({ running: false, result: null })
  })
})

/** A DET criterion's command: exits 0 when FILE holds exactly WANT. */
const CHECK = `const fs = require('fs')
const [file, want] = process.argv.slice(2)
const got = fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim() : '(missing)'
if (got !== want) { console.error(file + ': expected "' + want + '", got "' + got + '"'); process.exit(1) }
`

// A panel build on a real core: runBuild against the fake LLM over HTTP, real git snapshots, SQLite verdicts.
describe('queue API: builds', { timeout: 120_000 }, () => {
  let llm: FakeLlmServer
  let p: QueueProject
  let projectId: number
  const call = <T = unknown>(name: string, input: unknown) => p.call<T>(name, input)
  const buildEvents = () =>
    p.seen
      .filter((e) => e.name === 'queue.buildEvent')
      .map((e) => (e.payload as { event: QueueBuildEvent }).event)
  const status = () => call<BuildProgress>('queue.buildStatus', { projectId })

  beforeAll(async () => {
    llm = await startFakeLlmServer()
  })
  afterAll(() => llm.close())

  beforeEach(async () => {
    llm.requests.length = 0
    llm.fallback = say('Nothing more.')
    p = await openQueueProject({
      env: {
        RALPH_PROVIDER: 'openai-compatible',
        RALPH_MODEL: 'fake-model',
        RALPH_BASE_URL: llm.baseUrl,
        RALPH_API_KEY: '',
      },
      files: { 'check.cjs': CHECK },
    })
    projectId = p.projectId
  })
  afterEach(() => p.close())

  const addHello = () =>
    call<MutationResult>('queue.addTask', {
      projectId,
      name: 'Write hello.txt',
      accept: ['DET: `node check.cjs hello.txt hello` exits 0'],
      spec: 'spec.md',
    })

  it('refuses a build with nothing to build, saying what to do; nothing starts', async () => {
    await expect(call('queue.build', { projectId })).rejects.toMatchObject({
      kind: 'invalid-input',
      message: expect.stringMatching(/nothing to build/i),
    })
    expect(await status()).toMatchObject({ running: false, result: null })
    expect(await call('queue.stopBuild', { projectId })).toEqual({ stopped: false })
  })

  it('builds a task in the background: progress, verdicts, queue.changed and a desktop notice', async () => {
    const { ids } = await addHello()
    const id = ids[0]!
    llm.enqueue(
      parsed({ type: 'fresh', title: 'Write hello.txt' }),
      tools(
        ['write_file', { path: 'hello.txt', content: 'hello\n' }],
        ['mark_complete', { summary: 'Wrote hello.txt.' }],
      ),
    )
    p.seen.length = 0
    expect(await call('queue.build', { projectId })).toEqual({ started: true })
    await expect.poll(async () => (await status()).running, { timeout: 90_000 }).toBe(false)

    const progress = await status()
    expect(progress).toMatchObject({
      mode: 'hybrid',
      order: [id],
      maxAttempts: 3,
      current: null,
      tasks: [{ taskId: id, name: 'Write hello.txt', attempts: 1, state: 'accepted' }],
      result: { status: 'complete' },
    })
    expect(progress.verification).toMatchObject({ taskId: id, outcome: 'PASS' })
    expect(progress.verification!.verdicts.find((v) => v.ref === 'AC1')).toMatchObject({
      kind: 'DET',
      answer: 'YES',
    })
    expect(readFileSync(join(p.dir, 'hello.txt'), 'utf8')).toBe('hello\n')

    const types = buildEvents().map((e) => e.type)
    expect(types[0]).toBe('build.started')
    expect(types).toEqual(expect.arrayContaining(['build.attempt', 'verify.started', 'verify.criterion']))
    expect(types).not.toContain('llm.delta')
    expect(types.at(-1)).toBe('build.finished')
    // The acceptance is announced with its history commit; the notice goes to the host's notifications.
    const accepted = buildEvents().find((e) => e.type === 'build.accepted') as { commit: string | null }
    expect(p.seen.filter((e) => e.name === 'queue.changed').map((e) => e.payload)).toContainEqual({
      projectId,
      commit: accepted.commit,
    })
    expect(p.seen.find((e) => e.name === 'queue.notice')?.payload).toMatchObject({
      projectId,
      notice: {
        event: 'complete',
        title: 'The build is complete',
        path: expect.stringMatching(/^\.ralph\/notifications\/complete-/),
      },
    })

    // The stored verification, as the panel reads it.
    const { verifications } = await call<{ verifications: Verification[] }>('queue.verdicts', {
      projectId,
      taskId: id,
    })
    expect(verifications).toHaveLength(1)
    expect(verifications[0]).toMatchObject({ outcome: 'PASS', nonce: progress.verification!.nonce })
    // Its attempt's task number: what it changed is task-N-pre → task-N-post.
    const attempt = buildEvents().find((e) => e.type === 'build.attempt') as { task: number }
    expect(verifications[0]!.task).toBe(attempt.task)
    expect(verifications[0]!.verdicts.find((v) => v.ref === 'AC1')).toMatchObject({
      kind: 'DET',
      answer: 'YES',
    })
    expect((await call<QueueView>('queue.state', { projectId })).tasks).toEqual([])
  })

  it('builds in lanes: each lane’s spend, and an interactive build asks about the task it has just merged', async () => {
    const notes = (file: string) => `Write ${file} and nothing else.`
    const ids: string[] = []
    for (const [file, want] of [
      ['a.txt', 'alpha'],
      ['b.txt', 'beta'],
    ] as const) {
      const added = await call<MutationResult>('queue.addTask', {
        projectId,
        name: `Write ${file}`,
        notes: notes(file),
        accept: [`DET: \`node check.cjs ${file} ${want}\` exits 0`],
        spec: 'spec.md',
      })
      ids.push(added.ids[0]!)
      // Lanes ask the model at the same time: each task's replies are routed by its notes.
      llm.route(
        (r) => JSON.stringify(r.body).includes(notes(file)),
        parsed({ type: 'fresh', title: `Write ${file}` }),
        tools(['write_file', { path: file, content: `${want}\n` }], ['mark_complete', { summary: 'Done.' }]),
      )
    }
    await call('queue.build', { projectId, mode: 'interactive', parallel: 2 })
    const lastMerged = () =>
      (
        buildEvents()
          .filter((e) => e.type === 'build.merged')
          .at(-1) as { taskId: string } | undefined
      )?.taskId
    for (let i = 0; i < 2; i++) {
      await expect.poll(async () => (await status()).approval, { timeout: 90_000 }).not.toBeNull()
      const asked = await call<BuildProgress & { budget?: BuildBudgetStatus }>('queue.buildStatus', {
        projectId,
      })
      expect(asked).toMatchObject({ running: true, parallel: 2 })
      expect(asked.approval!.taskId).toBe(lastMerged())
      // Each lane's spend is read from its run (the fake model's calls cost nothing, but are counted).
      expect(asked.lanes.map((l) => l.spentUsd)).toEqual(asked.lanes.map(() => 0))
      expect(await call('queue.approve', { projectId, approve: true })).toEqual({ answered: true })
      await expect.poll(async () => (await status()).approval).toBeNull()
    }
    await expect.poll(async () => (await status()).running, { timeout: 90_000 }).toBe(false)
    const done = await status()
    expect(done.result?.status).toBe('complete')
    expect(done.lanes.map((l) => [l.taskId, l.state]).sort()).toEqual(ids.map((id) => [id, 'merged']).sort())
    expect(readFileSync(join(p.dir, 'b.txt'), 'utf8')).toBe('beta\n')
  })

  it('interactive mode waits for queue.approve before accepting the task', async () => {
    const { ids } = await addHello()
    llm.enqueue(
      parsed({ type: 'fresh', title: 'Write hello.txt' }),
      tools(
        ['write_file', { path: 'hello.txt', content: 'hello\n' }],
        ['mark_complete', { summary: 'Wrote hello.txt.' }],
      ),
    )
    expect(await call('queue.approve', { projectId, approve: true })).toEqual({ answered: false })
    await call('queue.build', { projectId, mode: 'interactive' })
    await expect
      .poll(async () => (await status()).approval, { timeout: 90_000 })
      .toEqual({
        taskId: ids[0],
        question: expect.stringMatching(/passed verification/),
      })
    // Waiting: the task is done, not yet accepted.
    expect((await call<QueueView>('queue.state', { projectId })).tasks.map((t) => t.status)).toEqual(['done'])
    expect(await call('queue.approve', { projectId, approve: true })).toEqual({ answered: true })
    await expect.poll(async () => (await status()).running, { timeout: 60_000 }).toBe(false)
    expect(await status()).toMatchObject({
      approval: null,
      mode: 'interactive',
      tasks: [{ taskId: ids[0], state: 'accepted' }],
      result: { status: 'complete' },
    })
    expect((await call<QueueView>('queue.state', { projectId })).tasks).toEqual([])
  })

  // The panel's one-step Reject answers "no", waits for build.finished, then calls queue.reject: the build's entry
  // may still be held (it releases the task lock after its last event). The release is held here until the
  // rejection has answered, so the call lands in that window every time.
  it('a rejection right after the build paused settles it, while the build is still releasing its lock', async () => {
    const { ids } = await addHello()
    const id = ids[0]!
    llm.enqueue(
      parsed({ type: 'fresh', title: 'Write hello.txt' }),
      tools(
        ['write_file', { path: 'hello.txt', content: 'hello\n' }],
        ['mark_complete', { summary: 'Wrote hello.txt.' }],
      ),
    )
    let letGo!: () => void
    const held = new Promise<void>((resolve) => (letGo = resolve))
    const release = FileLock.prototype.release
    const spy = vi.spyOn(FileLock.prototype, 'release').mockImplementation(async function (this: FileLock) {
      if (this.file === taskLockFile(p.dir)) await held
      return release.call(this)
    })
    let again: Promise<unknown> = Promise.resolve()
    try {
      await call('queue.build', { projectId, mode: 'interactive' })
      await expect.poll(async () => (await status()).approval?.taskId, { timeout: 90_000 }).toBe(id)
      expect(await call('queue.approve', { projectId, approve: false })).toEqual({ answered: true })
      await expect.poll(async () => (await status()).result?.status, { timeout: 60_000 }).toBe('paused')
      // The build has not ended yet (its lock is held), but the panel offers Build again: a start waits for the
      // release instead of refusing (the Retry button's build failed as busy in that window).
      let settled = false
      again = call('queue.build', { projectId })
      again.then(
        () => (settled = true),
        () => (settled = true),
      )
      await call('queue.reject', { projectId, id, reason: 'Not what I wanted.' })
      expect(await status()).toMatchObject({
        running: false,
        tasks: [{ taskId: id, state: 'rejected' }],
        result: { status: 'stopped', message: expect.stringMatching(/which you rejected since/) },
      })
      expect(settled).toBe(false)
    } finally {
      letGo()
      spy.mockRestore()
    }
    // Released: the waiting start builds the rejected task again; stopping it ends the test.
    expect(await again).toEqual({ started: true })
    expect(await call('queue.stopBuild', { projectId })).toEqual({ stopped: true })
    await expect
      .poll(async () => (await call<{ stopped: boolean }>('queue.stopBuild', { projectId })).stopped)
      .toBe(false)
    expect((await status()).result?.status).toBe('stopped')
  })

  it('refuses a second build or a chat task while one runs, and stops it inside the task', async () => {
    await addHello()
    llm.enqueue(parsed({ type: 'fresh', title: 'Write hello.txt' }), { kind: 'hang' })
    await call('queue.build', { projectId })
    await expect(call('queue.build', { projectId })).rejects.toMatchObject({
      kind: 'busy',
      message: expect.stringMatching(/build is already running/),
    })
    await expect(call('tasks.start', { projectId, message: 'something else' })).rejects.toMatchObject({
      kind: 'busy',
    })
    await expect
      .poll(async () => (await status()).current?.step ?? '', { timeout: 60_000 })
      .toMatch(/Iteration 1/)
    expect(await call('queue.stopBuild', { projectId })).toEqual({ stopped: true })
    const progress = await status()
    expect(progress).toMatchObject({ running: false, result: { status: 'stopped' } })
    expect(progress.tasks[0]).toMatchObject({ state: 'stopped' })
    // The task stays pending for the next build.
    expect((await call<QueueView>('queue.state', { projectId })).tasks.map((t) => t.status)).toEqual([
      'pending',
    ])
  })

  // `queue.buildStatus` carries a panel build's budget and spend (build/spend.ts's BuildSpend, on a real build).
  it('has no budget before a build; a build that hits its time budget reports the limits, the spend and the stop', async () => {
    const status = () =>
      call<BuildProgress & { budget?: BuildBudgetStatus }>('queue.buildStatus', { projectId })
    expect(await status()).not.toHaveProperty('budget')
    await call('queue.addTask', {
      projectId,
      name: 'Write a.txt',
      accept: ['DET: `node -e 0` exits 0'],
      spec: 'spec.md',
    })
    // A second of time budget; the model takes four to answer: the build stops inside the task.
    const slow = (delayMs?: number) => ({
      ...tools(['write_file', { path: 'a.txt', content: 'a\n' }], ['mark_complete', { summary: 'Done.' }]),
      ...(delayMs ? { delayMs } : {}),
    })
    llm.enqueue(parsed({ type: 'fresh', title: 'Write a.txt' }), slow(4_000))
    await call('queue.build', { projectId, maxCostUsd: 5, maxMinutes: 1 / 60 })
    const running = await status()
    expect(running.budget).toMatchObject({ maxCostUsd: 5, maxMinutes: 1 / 60, alerts: [] })

    await expect.poll(async () => (await status()).running, { timeout: 60_000 }).toBe(false)
    const done = await status()
    expect(done.result?.status).toBe('budget')
    expect(done.budget).toEqual({
      maxCostUsd: 5,
      maxMinutes: 1 / 60,
      spentUsd: done.result!.costUsd,
      alerts: [expect.objectContaining({ level: 'stop', kind: 'time', limit: 1 / 60 })],
    })
  })
})
