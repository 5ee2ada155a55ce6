import { spawn, type ChildProcess } from 'node:child_process'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createCore, type Core } from '../../../src/main/api/core'
import type { ChatMessageDto } from '../../../src/shared/api/chat'
import type { EventEnvelope } from '../../../src/shared/api/contract'
import { startFakeLlmServer, type FakeLlmServer, type ScriptedReply } from '../../fixtures/fakeLlmServer'
import { makeTempDir } from '../../helpers/tempDir'
import { done, parsed, say, tools } from '../loop/harness'

const chatChild = fileURLToPath(new URL('./chatChild.ts', import.meta.url))

async function waitFor(
  cond: () => boolean,
  what: string,
  timeoutMs = 60_000,
  refresh: () => Promise<void> = async () => undefined,
) {
  const deadline = Date.now() + timeoutMs
  while ((await refresh(), !cond())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 25))
  }
}

// Resume from the chat on a real core: a host killed with SIGKILL mid-task, a new host on the same app data.
describe('chat.resume', { timeout: 120_000 }, () => {
  let llm: FakeLlmServer
  let home: ReturnType<typeof makeTempDir>
  let work: ReturnType<typeof makeTempDir>
  let core: Core | null
  let projectId: number
  let dir: string
  let child: ChildProcess | null

  const open = () =>
    (core = createCore({ appDataDir: home.path, env: {}, host: { kind: 'web', openedFrom: 'test' } }))
  async function call<T = unknown>(name: string, input: unknown): Promise<T> {
    const result = await core!.dispatch(name, input)
    if (!result.ok) throw Object.assign(new Error(result.error.message), { kind: result.error.kind })
    return result.value as T
  }
  const failure = async (name: string, input: unknown) => {
    const result = await core!.dispatch(name, input)
    if (result.ok) throw new Error(`${name} succeeded`)
    return result.error
  }
  const tasks = async () =>
    (await call<{ messages: ChatMessageDto[] }>('chat.history', { projectId })).messages.filter(
      (m) => m.kind === 'task',
    )
  const finished = () =>
    new Promise<EventEnvelope>((resolve) => {
      const off = core!.events.subscribe((e) => {
        if (e.name === 'loop.finished') {
          off()
          resolve(e)
        }
      })
    })

  /** A host process sends the message and runs its task until the model hangs; then it dies with SIGKILL. */
  async function killedHostMidTask(message: string, modelCalls: number) {
    await core!.close()
    core = null
    child = spawn(process.execPath, ['--import', 'tsx', chatChild, home.path, String(projectId), message], {
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let out = ''
    child.stdout!.on('data', (b: Buffer) => (out += b.toString()))
    const closed = new Promise<void>((resolve) => child!.on('close', () => resolve()))
    await waitFor(
      () =>
        out.includes('"type":"sent"') &&
        out.includes('"iteration.started"') &&
        llm.requests.length >= modelCalls,
      'the host to be mid-task',
    )
    child.kill('SIGKILL')
    await closed
    child = null
    open()
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
    child = null
    open()
    dir = join(work.path, 'app')
    mkdirSync(dir)
    writeFileSync(join(dir, 'a.txt'), 'one\n')
    projectId = (await call<{ id: number }>('projects.open', { path: dir })).id
    await call('settings.setProvider', {
      settings: { provider: 'openai-compatible', model: 'fake-model', baseUrl: llm.baseUrl },
    })
  })
  afterEach(async () => {
    child?.kill('SIGKILL')
    await core?.close()
    home.cleanup()
    work.cleanup()
  })

  it('the same card goes from Interrupted back to Running and on to Complete, as the same task and run', async () => {
    llm.enqueue(
      parsed({ type: 'bugfix', title: 'Fix the greeting' }),
      tools(['write_file', { path: 'a.txt', content: 'two\n' }]),
      { kind: 'hang' },
    )
    await killedHostMidTask('fix the greeting', 3)

    const [card] = await tasks()
    expect(card!.card).toMatchObject({ task: 1, status: 'interrupted', title: 'Fix the greeting' })
    const runId = card!.card!.runId!

    // The model takes its time, so the card is seen running (the wait is the model's, not the test's).
    llm.enqueue({ ...done('The greeting says two.'), delayMs: 1500 } as ScriptedReply)
    const end = finished()
    expect(await call('chat.resume', { projectId, runId })).toEqual({ task: 1 })
    let running: ChatMessageDto[] = []
    await waitFor(
      () => running[0]?.card?.status === 'running',
      'the card to say Running',
      60_000,
      async () => {
        running = await tasks()
      },
    )
    expect(running.map((m) => m.id)).toEqual([card!.id])
    // While it runs, a second resume is busy.
    expect(await failure('chat.resume', { projectId, runId })).toMatchObject({ kind: 'busy' })

    expect((await end).payload).toMatchObject({ projectId, task: 1, status: 'complete' })
    const after = await tasks()
    expect(after).toHaveLength(1)
    expect(after[0]).toMatchObject({ id: card!.id })
    expect(after[0]!.card).toMatchObject({
      task: 1,
      runId,
      status: 'complete',
      iterations: 2,
      outcome: 'The greeting says two.',
    })
    const tags = await call<{ items: { tag: string }[] }>('snapshots.list', { projectId })
    expect(tags.items.map((s) => s.tag).filter((t) => t.startsWith('task-'))).toEqual(
      expect.arrayContaining(['task-1-pre', 'task-1-post']),
    )
    expect(tags.items.filter((s) => s.tag === 'task-1-pre')).toHaveLength(1)
    expect(readFileSync(join(dir, 'a.txt'), 'utf8')).toBe('two\n')

    // Nothing is interrupted any more: a resume says so and changes nothing.
    expect(await failure('chat.resume', { projectId, runId })).toMatchObject({
      kind: 'not-found',
      message: expect.stringContaining('was not interrupted — it ended as complete'),
    })
    expect((await tasks())[0]!.card!.status).toBe('complete')
  })

  it('refuses a run that is not the interrupted last task, and a project with no task', async () => {
    expect(await failure('chat.resume', { projectId, runId: 1 })).toMatchObject({
      kind: 'not-found',
      message: expect.stringContaining('none has run yet'),
    })
    llm.enqueue(parsed({ type: 'bugfix' }), { kind: 'hang' })
    await killedHostMidTask('fix it', 2)
    const runId = (await tasks())[0]!.card!.runId!
    expect(await failure('chat.resume', { projectId, runId: runId + 100 })).toMatchObject({
      kind: 'not-found',
      message: expect.stringContaining("only the project's last task (task 1) can be resumed"),
    })
    expect((await tasks())[0]!.card!.status).toBe('interrupted')
  })
})
