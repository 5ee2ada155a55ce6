import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { ChatMessageDto, PendingQuestionDto } from '../../../src/shared/api/chat'
import type { ScriptedReply } from '../../fixtures/fakeLlmServer'
import { useChatCore } from '../../helpers/chatCore'
import { parsed, say, tools } from '../loop/harness'

// A task waiting for an answer, through the contract on a real core: answered only on purpose, dismissed, closed by
// a rollback; and a Stop that leaves the queued follow-ups waiting.
describe('chat: the pending question and Stop', () => {
  const chat = useChatCore({ files: { 'menu.txt': 'Latte\n' } })
  const { call, failure } = chat
  const history = () =>
    call<{ messages: ChatMessageDto[]; pendingQuestion?: PendingQuestionDto | null }>('chat.history', {
      projectId: chat.projectId,
    })
  const finishedCount = () => chat.seen.filter((e) => e.name === 'loop.finished').length
  const finishedStatuses = () =>
    chat.seen.filter((e) => e.name === 'loop.finished').map((e) => (e.payload as { status: string }).status)

  /** Task 1 asks a question and waits. */
  async function waitingTask() {
    chat.llm.enqueue(
      parsed({ type: 'needs-clarification', title: 'Drinks', clarification: 'Two new, or rename two?' }),
    )
    const before = finishedCount()
    await call('chat.send', { projectId: chat.projectId, mode: 'task', text: 'add night drinks' })
    await expect.poll(finishedCount, { timeout: 30_000 }).toBe(before + 1)
    expect((await history()).pendingQuestion).toMatchObject({
      task: 1,
      title: 'Drinks',
      question: 'Two new, or rename two?',
    })
  }

  it('never takes a Task message as the answer unless it says so', async () => {
    await waitingTask()
    const requests = chat.llm.requests.length
    expect(
      await failure('chat.send', { projectId: chat.projectId, mode: 'task', text: 'Add a footer' }),
    ).toMatchObject({
      kind: 'busy',
      message: expect.stringContaining('Task 1 waits for your answer'),
    })
    expect(
      await failure('chat.send', { projectId: chat.projectId, mode: 'task', text: 'x', answering: 2 }),
    ).toMatchObject({
      kind: 'busy',
    })
    expect(chat.llm.requests.length).toBe(requests)
    // Nothing was recorded for the refused messages.
    expect((await history()).messages.map((m) => m.text)).not.toContain('Add a footer')
    // Ask mode still answers; it changes nothing.
    chat.llm.enqueue(say('It is a menu.'))
    await call('chat.send', { projectId: chat.projectId, mode: 'ask', text: 'What is this?' })
    expect((await history()).pendingQuestion?.task).toBe(1)
  })

  it('dismisses the question: the task ends as Stopped, its pre-task snapshot kept, and the next message starts a new task', async () => {
    await waitingTask()
    const lastTask = async () =>
      (await call<{ state: { lastTask: unknown } }>('projects.get', { projectId: chat.projectId })).state
        .lastTask
    // The header's source: the newest run row, as the card reads it.
    expect(await lastTask()).toEqual({ task: 1, title: 'Drinks', status: 'waiting' })
    const seen = chat.seen.length
    expect(await call('chat.dismissQuestion', { projectId: chat.projectId, task: 1 })).toEqual({ task: 1 })
    // The project's state changed with the run row: the header refreshes from this event, not from a reload.
    expect(chat.seen.slice(seen)).toContainEqual({
      name: 'projects.changed',
      payload: { projectId: chat.projectId },
    })
    expect(await lastTask()).toEqual({ task: 1, title: 'Drinks', status: 'stopped' })
    const { messages, pendingQuestion } = await history()
    expect(pendingQuestion).toBeNull()
    expect(messages[0]!.card).toMatchObject({
      task: 1,
      status: 'stopped',
      outcome: expect.stringContaining('you dismissed Ralph’s question (“Two new, or rename two?”)'),
    })
    const list = await call<{ items: { tag: string }[] }>('snapshots.list', { projectId: chat.projectId })
    expect(list.items.map((s) => s.tag)).toContain('task-1-pre')
    // A second dismiss, or an answer to the closed question, is refused.
    expect(await failure('chat.dismissQuestion', { projectId: chat.projectId, task: 1 })).toMatchObject({
      kind: 'not-found',
    })
    expect(
      await failure('chat.send', { projectId: chat.projectId, mode: 'task', text: 'two new', answering: 1 }),
    ).toMatchObject({
      kind: 'not-found',
      message: expect.stringContaining('no longer waits'),
    })

    chat.llm.enqueue(
      parsed({ type: 'fresh', title: 'Footer' }),
      tools(['write_file', { path: 'footer.txt', content: 'f' }], ['mark_complete', { summary: 'Footer.' }]),
    )
    await call('chat.send', { projectId: chat.projectId, mode: 'task', text: 'Add a footer' })
    await expect.poll(finishedStatuses, { timeout: 30_000 }).toEqual(['needs-clarification', 'complete'])
    const card = (await history()).messages[0]!.card!
    expect(card).toMatchObject({ task: 2, status: 'complete', title: 'Footer' })
    // The footer request started task 2 on its own: the parser read it without task 1's request or an answer.
    expect(JSON.stringify(chat.llm.requests.at(-2)!.body)).not.toContain('add night drinks')
  })

  it('closes the question when a rollback takes the project back before it, and says so', async () => {
    await waitingTask()
    await call('snapshots.rollback', { projectId: chat.projectId, tag: 'task-1-pre' })
    await expect
      .poll(async () => (await history()).messages.find((m) => m.kind === 'notice')?.text ?? '')
      .toContain('Task 1 no longer waits for your answer: it ended as Stopped')
    const { messages, pendingQuestion } = await history()
    expect(pendingQuestion).toBeNull()
    expect(messages.find((m) => m.kind === 'task')!.card).toMatchObject({
      status: 'stopped',
      outcome: expect.stringContaining('rolled back to task-1-pre'),
    })
    expect(
      await failure('chat.send', { projectId: chat.projectId, mode: 'task', text: 'two new', answering: 1 }),
    ).toMatchObject({
      kind: 'not-found',
    })
    // A reopened core reads the same: no card waits.
    await chat.reopen()
    const again = await history()
    expect(again.pendingQuestion).toBeNull()
    expect(again.messages.find((m) => m.kind === 'task')!.card!.status).toBe('stopped')
  })

  it('does not start the queued follow-ups when the running task is stopped', async () => {
    chat.llm.enqueue(
      parsed({ type: 'fresh', title: 'Write a' }),
      { kind: 'hang' } as ScriptedReply,
      parsed({ type: 'fresh', title: 'Write b' }),
      tools(['write_file', { path: 'b.txt', content: 'b' }], ['mark_complete', { summary: 'Wrote b.' }]),
    )
    await call('chat.send', { projectId: chat.projectId, mode: 'task', text: 'write a.txt' })
    const b = await call<{ queued: boolean }>('chat.send', {
      projectId: chat.projectId,
      mode: 'task',
      text: 'write b.txt',
    })
    expect(b.queued).toBe(true)
    await expect.poll(() => chat.llm.requests.length, { timeout: 30_000 }).toBe(2)
    await call('tasks.stop', { projectId: chat.projectId })
    await expect.poll(finishedStatuses, { timeout: 30_000 }).toEqual(['stopped'])
    const { messages } = await history()
    expect(messages[0]!.card!.status).toBe('queued')
    expect(await call('tasks.running', { projectId: chat.projectId })).toEqual({ running: false })
    expect(chat.llm.requests.length).toBe(2)
    // Run them: Start now starts the follow-up.
    await call('chat.startQueued', { projectId: chat.projectId, messageId: messages[0]!.id })
    await expect.poll(finishedStatuses, { timeout: 30_000 }).toEqual(['stopped', 'complete'])
    expect(existsSync(join(chat.dir, 'b.txt'))).toBe(true)
  })
})
