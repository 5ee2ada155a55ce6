import { spawn, type ChildProcess } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { ChatMessageDto } from '../../../src/shared/api/chat'
import type { EventEnvelope } from '../../../src/shared/api/contract'
import type { ScriptedReply } from '../../fixtures/fakeLlmServer'
import { useChatCore } from '../../helpers/chatCore'
import { done, parsed, tools } from '../loop/harness'

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
  const chat = useChatCore({ files: { 'a.txt': 'one\n' } })
  const { call, failure } = chat
  let child: ChildProcess | null
  const tasks = async () =>
    (
      await call<{ messages: ChatMessageDto[] }>('chat.history', { projectId: chat.projectId })
    ).messages.filter((m) => m.kind === 'task')
  const finished = () =>
    new Promise<EventEnvelope>((resolve) => {
      const off = chat.core.events.subscribe((e) => {
        if (e.name === 'loop.finished') {
          off()
          resolve(e)
        }
      })
    })

  /** A host process sends the message and runs its task until the model hangs; then it dies with SIGKILL. */
  async function killedHostMidTask(message: string, modelCalls: number) {
    await chat.close()
    child = spawn(
      process.execPath,
      ['--import', 'tsx', chatChild, chat.home, String(chat.projectId), message],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    )
    let out = ''
    child.stdout!.on('data', (b: Buffer) => (out += b.toString()))
    const closed = new Promise<void>((resolve) => child!.on('close', () => resolve()))
    await waitFor(
      () =>
        out.includes('"type":"sent"') &&
        out.includes('"iteration.started"') &&
        chat.llm.requests.length >= modelCalls,
      'the host to be mid-task',
    )
    child.kill('SIGKILL')
    await closed
    child = null
    await chat.reopen()
  }

  beforeEach(() => {
    child = null
  })
  // Runs before the fixture's own afterEach closes the core.
  afterEach(() => {
    child?.kill('SIGKILL')
  })

  it('the same card goes from Interrupted back to Running and on to Complete, as the same task and run', async () => {
    chat.llm.enqueue(
      parsed({ type: 'bugfix', title: 'Fix the greeting' }),
      tools(['write_file', { path: 'a.txt', content: 'two\n' }]),
      { kind: 'hang' },
    )
    await killedHostMidTask('fix the greeting', 3)

    const [card] = await tasks()
    expect(card!.card).toMatchObject({ task: 1, status: 'interrupted', title: 'Fix the greeting' })
    const runId = card!.card!.runId!

    // The model takes its time, so the card is seen running (the wait is the model's, not the test's).
    chat.llm.enqueue({ ...done('The greeting says two.'), delayMs: 1500 } as ScriptedReply)
    const end = finished()
    expect(await call('chat.resume', { projectId: chat.projectId, runId })).toEqual({ task: 1 })
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
    expect(await failure('chat.resume', { projectId: chat.projectId, runId })).toMatchObject({ kind: 'busy' })

    expect((await end).payload).toMatchObject({ projectId: chat.projectId, task: 1, status: 'complete' })
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
    const tags = await call<{ items: { tag: string }[] }>('snapshots.list', { projectId: chat.projectId })
    expect(tags.items.map((s) => s.tag).filter((t) => t.startsWith('task-'))).toEqual(
      expect.arrayContaining(['task-1-pre', 'task-1-post']),
    )
    expect(tags.items.filter((s) => s.tag === 'task-1-pre')).toHaveLength(1)
    expect(readFileSync(join(chat.dir, 'a.txt'), 'utf8')).toBe('two\n')

    // Nothing is interrupted any more: a resume says so and changes nothing.
    expect(await failure('chat.resume', { projectId: chat.projectId, runId })).toMatchObject({
      kind: 'not-found',
      message: expect.stringContaining('was not interrupted — it ended as complete'),
    })
    expect((await tasks())[0]!.card!.status).toBe('complete')
  })

  it('refuses a run that is not the interrupted last task, and a project with no task', async () => {
    expect(await failure('chat.resume', { projectId: chat.projectId, runId: 1 })).toMatchObject({
      kind: 'not-found',
      message: expect.stringContaining('none has run yet'),
    })
    chat.llm.enqueue(parsed({ type: 'bugfix' }), { kind: 'hang' })
    await killedHostMidTask('fix it', 2)
    const runId = (await tasks())[0]!.card!.runId!
    expect(await failure('chat.resume', { projectId: chat.projectId, runId: runId + 100 })).toMatchObject({
      kind: 'not-found',
      message: expect.stringContaining("only the project's last task (task 1) can be resumed"),
    })
    expect((await tasks())[0]!.card!.status).toBe('interrupted')
  })
})
