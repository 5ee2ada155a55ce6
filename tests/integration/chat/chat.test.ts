import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ConversationsRepo } from '../../../src/main/store/conversationsRepo'
import { RunsRepo } from '../../../src/main/store/runsRepo'
import type { ChatMessageDto } from '../../../src/shared/api/chat'
import type { EventEnvelope } from '../../../src/shared/api/contract'
import type { ScriptedReply } from '../../fixtures/fakeLlmServer'
import { baselineSettled } from '../../helpers/baseline'
import { useChatCore } from '../../helpers/chatCore'
import { parsed, say, tools } from '../loop/harness'

// The chat through the contract, on a real core: real SQLite, real loop, real HTTP to the fake LLM server.
describe('chat', () => {
  const chat = useChatCore()
  const { call, failure } = chat
  const history = (input: Record<string, unknown> = {}) =>
    call<{ conversationId: number; messages: ChatMessageDto[]; nextBefore: number | null }>('chat.history', {
      projectId: chat.projectId,
      ...input,
    })
  const finished = () =>
    new Promise<EventEnvelope>((resolve) => {
      const off = chat.core.events.subscribe((e) => {
        if (e.name === 'loop.finished') {
          off()
          resolve(e)
        }
      })
    })

  it('pages history newest first with a cursor, without gaps or repeats', async () => {
    const repo = new ConversationsRepo(chat.core.services.db)
    const conversation = repo.current(chat.projectId)
    for (let i = 1; i <= 120; i++) repo.add(conversation.id, { kind: 'user', mode: 'ask', text: `m${i}` })
    const texts: string[] = []
    let before: number | undefined
    let pages = 0
    do {
      const page = await history({ limit: 50, ...(before ? { before } : {}) })
      texts.push(...page.messages.map((m) => m.text))
      before = page.nextBefore ?? undefined
      pages++
    } while (before)
    expect(pages).toBe(3)
    expect(texts).toEqual(Array.from({ length: 120 }, (_, i) => `m${120 - i}`))
    // The first user message names the conversation.
    expect(repo.current(chat.projectId).title).toBe('m1')
  })

  it('keeps one current conversation; New conversation starts another and the old one stays readable', async () => {
    const first = await call<{ current: { id: number; current: boolean }; items: unknown[] }>(
      'chat.conversations',
      { projectId: chat.projectId },
    )
    expect(first.current).toMatchObject({ title: 'New conversation', current: true, messageCount: 0 })
    // An empty current conversation is reused rather than doubled.
    expect((await call<{ id: number }>('chat.newConversation', { projectId: chat.projectId })).id).toBe(
      first.current.id,
    )

    const repo = new ConversationsRepo(chat.core.services.db)
    repo.add(first.current.id, { kind: 'notice', text: 'Rolled back to task-1-pre' })
    const second = await call<{ id: number; current: boolean }>('chat.newConversation', {
      projectId: chat.projectId,
    })
    expect(second.id).not.toBe(first.current.id)
    expect(chat.seen.some((e) => e.name === 'chat.changed')).toBe(true)
    const list = await call<{ current: { id: number }; items: { id: number; current: boolean }[] }>(
      'chat.conversations',
      { projectId: chat.projectId },
    )
    expect(list.current.id).toBe(second.id)
    expect(list.items.map((c) => [c.id, c.current])).toEqual([
      [second.id, true],
      [first.current.id, false],
    ])
    expect((await history()).messages).toEqual([])
    const old = await history({ conversationId: first.current.id })
    expect(old.messages.map((m) => [m.kind, m.text])).toEqual([['notice', 'Rolled back to task-1-pre']])

    const other = join(chat.work, 'other')
    mkdirSync(other)
    const otherId = (await call<{ id: number }>('projects.open', { path: other })).id
    expect(
      await failure('chat.history', { projectId: otherId, conversationId: first.current.id }),
    ).toMatchObject({ kind: 'not-found' })
  })

  it('sends a task: the card links to its run, and a reopened core shows the same card', async () => {
    chat.llm.enqueue(
      parsed({
        type: 'fresh',
        title: 'Write x',
        requirements: [{ marker: 'ADD', description: 'a file x.txt', count: 1 }],
        scope: { preserve: ['README.md'], affectedFiles: ['x.txt'] },
      }),
      tools(['write_file', { path: 'x.txt', content: 'x' }], ['mark_complete', { summary: 'Wrote x.txt.' }]),
    )
    const done = finished()
    const sent = await call<{ conversationId: number; messageId: number }>('chat.send', {
      projectId: chat.projectId,
      mode: 'task',
      text: 'write x.txt',
    })
    expect((await done).payload).toMatchObject({ status: 'complete', task: 1 })
    const { messages } = await history()
    expect(messages.map((m) => m.kind)).toEqual(['task', 'user'])
    expect(messages[1]).toMatchObject({ id: sent.messageId, mode: 'task', text: 'write x.txt' })
    const card = messages[0]!.card!
    expect(card).toMatchObject({
      task: 1,
      title: 'Write x',
      type: 'fresh',
      status: 'complete',
      outcome: 'Wrote x.txt.',
      iterations: 1,
      toolCallCount: 2,
    })
    expect(card.runId).toBeGreaterThan(0)
    expect(card.requirements).toEqual([{ marker: 'ADD', description: 'a file x.txt', count: 1 }])
    expect(card.preserve).toEqual(['README.md'])
    expect(card.toolCalls.map((t) => [t.name, t.path, t.ok])).toEqual([
      ['write_file', 'x.txt', true],
      ['mark_complete', null, true],
    ])
    expect(card.gates.length).toBeGreaterThan(0)
    expect(card.cost.calls).toBe(2)
    expect(card.cost.inputTokens).toBeGreaterThan(0)
    expect(chat.seen.filter((e) => e.name === 'chat.changed').length).toBeGreaterThan(1)

    await chat.reopen()
    expect(await history()).toEqual({
      conversationId: sent.conversationId,
      messages,
      nextBefore: null,
      pendingQuestion: null,
    })
  })

  it('queues a task sent while one runs: removable, started when the running one ends', async () => {
    // The first task's parse answers late, so it is surely still running when the next messages arrive.
    chat.llm.enqueue(
      late(parsed({ type: 'fresh', title: 'Write a' })),
      tools(['write_file', { path: 'a.txt', content: 'a' }], ['mark_complete', { summary: 'Wrote a.' }]),
      parsed({ type: 'fresh', title: 'Write b' }),
      tools(['write_file', { path: 'b.txt', content: 'b' }], ['mark_complete', { summary: 'Wrote b.' }]),
    )
    await call('chat.send', { projectId: chat.projectId, mode: 'task', text: 'write a.txt' })
    const b = await call<{ queued: boolean }>('chat.send', {
      projectId: chat.projectId,
      mode: 'task',
      text: 'write b.txt',
    })
    const c = await call<{ queued: boolean }>('chat.send', {
      projectId: chat.projectId,
      mode: 'task',
      text: 'write c.txt',
    })
    expect([b.queued, c.queued]).toEqual([true, true])
    let { messages } = await history()
    expect(messages.map((m) => [m.kind, m.card?.status ?? m.text])).toEqual([
      ['task', 'queued'],
      ['user', 'write c.txt'],
      ['task', 'queued'],
      ['user', 'write b.txt'],
      ['task', expect.stringMatching(/starting|running/)],
      ['user', 'write a.txt'],
    ])
    expect(messages[2]!.card!.request).toBe('write b.txt')
    // Start now is refused while a task runs; Remove takes the card and its message away.
    expect(
      await failure('chat.startQueued', { projectId: chat.projectId, messageId: messages[0]!.id }),
    ).toMatchObject({
      kind: 'busy',
    })
    await call('chat.removeQueued', { projectId: chat.projectId, messageId: messages[0]!.id })
    expect((await history()).messages.map((m) => m.text)).not.toContain('write c.txt')

    await expect
      .poll(() => chat.seen.filter((e) => e.name === 'loop.finished').map((e) => e.payload), {
        timeout: 60_000,
      })
      .toEqual([
        expect.objectContaining({ status: 'complete', task: 1 }),
        expect.objectContaining({ status: 'complete', task: 2 }),
      ])
    ;({ messages } = await history())
    expect(messages.map((m) => [m.kind, m.card?.title ?? m.text, m.card?.status])).toEqual([
      ['task', 'Write b', 'complete'],
      ['user', 'write b.txt', undefined],
      ['task', 'Write a', 'complete'],
      ['user', 'write a.txt', undefined],
    ])
    expect(messages[0]!.card!.request).toBeNull()
    expect(readFileSync(join(chat.dir, 'b.txt'), 'utf8')).toBe('b')
    expect(existsSync(join(chat.dir, 'c.txt'))).toBe(false)
    expect(
      await failure('chat.removeQueued', { projectId: chat.projectId, messageId: messages[0]!.id }),
    ).toMatchObject({
      kind: 'not-found',
    })
  })

  it('says a card is starting until its run exists, and cut short if its host died before that', async () => {
    const repo = new ConversationsRepo(chat.core.services.db)
    const conversation = repo.current(chat.projectId)
    const cardId = repo.add(conversation.id, { kind: 'task' })
    repo.update(cardId, { task: 7 })
    const status = async () => (await history()).messages.find((m) => m.id === cardId)!.card!
    expect(await status()).toMatchObject({ task: 7, status: 'starting', detail: null })
    await chat.reopen()
    expect(await status()).toMatchObject({
      status: 'failed',
      detail: 'Cut short: Ralph was closed while starting this task.',
    })
  })

  it('keeps queued tasks waiting while a task waits for an answer, and Start now refuses to answer it', async () => {
    chat.llm.enqueue(late(parsed({ type: 'needs-clarification', title: 'Drinks', clarification: 'Which?' })))
    await call('chat.send', { projectId: chat.projectId, mode: 'task', text: 'add drinks' })
    const queued = await call<{ queued: boolean }>('chat.send', {
      projectId: chat.projectId,
      mode: 'task',
      text: 'write d.txt',
    })
    expect(queued.queued).toBe(true)
    await expect.poll(() => chat.seen.some((e) => e.name === 'loop.finished'), { timeout: 30_000 }).toBe(true)
    const card = (await history()).messages[0]!
    expect(card.card!.status).toBe('queued')
    expect(
      await failure('chat.startQueued', { projectId: chat.projectId, messageId: card.id }),
    ).toMatchObject({
      kind: 'busy',
      message: expect.stringContaining('waits for your answer'),
    })
    expect(chat.llm.requests.length).toBe(1)
  })

  it('continues a task waiting for an answer on the same card', async () => {
    chat.llm.enqueue(
      parsed({
        type: 'needs-clarification',
        title: 'Drinks',
        clarification: 'Two new drinks, or rename two?',
      }),
    )
    let done = finished()
    await call('chat.send', { projectId: chat.projectId, mode: 'task', text: 'add night drinks' })
    await done
    let card = (await history()).messages[0]!.card!
    expect(card).toMatchObject({ task: 1, status: 'waiting', outcome: 'Two new drinks, or rename two?' })

    chat.llm.enqueue(
      parsed({ type: 'fresh', title: 'Drinks' }),
      tools(
        ['write_file', { path: 'drinks.txt', content: 'Moon\nRest\n' }],
        ['mark_complete', { summary: 'Added two.' }],
      ),
    )
    done = finished()
    await call('chat.send', { projectId: chat.projectId, mode: 'task', text: 'two new ones', answering: 1 })
    await done
    const { messages } = await history()
    expect(messages.map((m) => m.kind)).toEqual(['user', 'task', 'user'])
    card = messages[1]!.card!
    expect(card).toMatchObject({ task: 1, status: 'complete', outcome: 'Added two.' })
  })

  it('notes a rollback and its undo in the current conversation', async () => {
    writeFileSync(join(chat.dir, 'a.txt'), 'one')
    const saved = await call<{ tag: string }>('snapshots.save', { projectId: chat.projectId })
    writeFileSync(join(chat.dir, 'a.txt'), 'two')
    const report = await call<{ safetyTag: string }>('snapshots.rollback', {
      projectId: chat.projectId,
      tag: saved.tag,
    })
    expect((await history()).messages.map((m) => [m.kind, m.text])).toEqual([
      ['notice', `Rolled back to ${saved.tag}. The state before it is saved as ${report.safetyTag}.`],
    ])
    await call('snapshots.undo', { projectId: chat.projectId })
    expect((await history()).messages[0]).toMatchObject({
      kind: 'notice',
      text: expect.stringMatching(/^Undid the rollback/),
    })
  })

  it('shows a task whose process died as Interrupted', async () => {
    const runId = new RunsRepo(chat.core.services.db).startRun({
      projectId: chat.projectId,
      projectPath: chat.dir,
      task: 1,
      message: 'go',
    })
    writeFileSync(join(chat.dir, '.ralph', 'status.txt'), 'running\n')
    const repo = new ConversationsRepo(chat.core.services.db)
    const cardId = repo.add(repo.current(chat.projectId).id, { kind: 'task' })
    repo.update(cardId, { task: 1, runId })
    const card = (await history()).messages[0]!.card!
    expect(card).toMatchObject({ task: 1, runId, status: 'interrupted' })
  })

  it('refuses a task with no provider and records nothing', async () => {
    const bare = join(chat.work, 'bare')
    mkdirSync(bare)
    // A core whose environment names no provider and whose settings were never set.
    await chat.reopen({ freshHome: true })
    const projectId = await chat.openProject(bare)
    expect(await failure('chat.send', { projectId, mode: 'task', text: 'do it' })).toMatchObject({
      kind: 'config',
    })
    expect(await failure('chat.send', { projectId, mode: 'ask', text: 'what is it?' })).toMatchObject({
      kind: 'config',
    })
    expect((await history({ projectId })).messages).toEqual([])
  })

  it('answers in Ask mode, reading the project with read-only tools only, streamed, and changes nothing', async () => {
    mkdirSync(join(chat.dir, 'src'))
    writeFileSync(join(chat.dir, 'README.md'), '# Coffee shop\nA menu page.')
    writeFileSync(join(chat.dir, 'src', 'menu.ts'), 'export const menu = ["Moonlit Calm"]')
    // Opening the project started its baseline snapshot in the background: let it finish, the answer writes nothing.
    await baselineSettled((name, input) => chat.core.dispatch(name, input), chat.projectId)
    const before = fingerprint(chat.dir)
    chat.llm.enqueue(
      tools(
        ['read_file', { path: 'src/menu.ts' }],
        // Not one of Ask's tools: refused like an unknown tool, so nothing is written.
        ['write_file', { path: 'src/menu.ts', content: 'broken' }],
      ),
      say('It is a coffee shop menu page; the menu has Moonlit Calm.'),
    )
    const changed = new Promise<void>((resolve) => {
      const off = chat.core.events.subscribe((e) => {
        if (e.name === 'chat.changed' && chat.seen.some((s) => s.name === 'chat.delta')) {
          off()
          resolve()
        }
      })
    })
    await call('chat.send', { projectId: chat.projectId, mode: 'ask', text: 'What is on the menu?' })
    await changed
    const { messages } = await history()
    expect(messages.map((m) => [m.kind, m.text, m.error])).toEqual([
      ['answer', 'It is a coffee shop menu page; the menu has Moonlit Calm.', null],
      ['user', 'What is on the menu?', null],
    ])
    type Request = {
      messages: { role: string; content: unknown }[]
      tools?: { function: { name: string } }[]
    }
    const [first, second] = chat.llm.requests.slice(-2).map((r) => r.body as Request)
    expect(first!.tools!.map((t) => t.function.name).sort()).toEqual(['grep', 'list_files', 'read_file'])
    expect(first!.messages[0]!.content).toContain('src/menu.ts')
    expect(first!.messages[0]!.content).toContain('# Coffee shop')
    const results = JSON.stringify(second!.messages.filter((m) => m.role === 'tool'))
    expect(results).toContain('Moonlit Calm')
    expect(results).toMatch(/unavailable tool 'write_file'\. Available tools: read_file, list_files, grep/)
    expect(fingerprint(chat.dir)).toEqual(before)
    expect(readFileSync(join(chat.dir, 'src', 'menu.ts'), 'utf8')).toBe(
      'export const menu = ["Moonlit Calm"]',
    )
    expect(await call('snapshots.list', { projectId: chat.projectId })).toMatchObject({
      total: 1,
      items: [{ kind: 'baseline' }],
    })
  })

  it('ends an Ask answer that keeps reading after six rounds, saying so', async () => {
    writeFileSync(join(chat.dir, 'a.txt'), 'a')
    for (let i = 0; i < 7; i++) chat.llm.enqueue(tools(['read_file', { path: 'a.txt' }]))
    const changed = new Promise<void>((resolve) => {
      const off = chat.core.events.subscribe((e) => {
        if (e.name === 'chat.changed' && chat.seen.some((s) => s.name === 'chat.delta')) {
          off()
          resolve()
        }
      })
    })
    await call('chat.send', { projectId: chat.projectId, mode: 'ask', text: 'Read forever' })
    await changed
    expect((await history()).messages[0]).toMatchObject({
      kind: 'answer',
      text: '*(Ralph stopped reading after 6 rounds of tool calls.)*',
      error: null,
    })
    const last = chat.llm.requests.at(-1)!.body as { messages: { role: string; content: unknown }[] }
    expect(last.messages.at(-1)).toEqual({
      role: 'user',
      content: 'You have read enough: answer now from what you read.',
    })
  })

  it('stops an Ask answer being written: what it wrote stays, marked as stopped', async () => {
    chat.llm.enqueue({ kind: 'stall', text: 'The menu has three drinks' })
    const delta = new Promise<void>((resolve) => {
      const off = chat.core.events.subscribe((e) => {
        if (e.name === 'chat.delta') {
          off()
          resolve()
        }
      })
    })
    await call('chat.send', { projectId: chat.projectId, mode: 'ask', text: 'What is on the menu?' })
    await delta
    await expect
      .poll(async () =>
        JSON.stringify(chat.seen.filter((e) => e.name === 'chat.delta').map((e) => e.payload)),
      )
      .toContain('drinks')
    const changed = new Promise<void>((resolve) => {
      const off = chat.core.events.subscribe((e) => {
        if (e.name === 'chat.changed') {
          off()
          resolve()
        }
      })
    })
    expect(await call('chat.stopAnswer', { projectId: chat.projectId })).toEqual({ stopped: true })
    await changed
    const answer = (await history()).messages[0]!
    expect(answer).toMatchObject({ kind: 'answer', error: null })
    expect(answer.text).toBe('The menu has three drinks\n\n*(Stopped.)*')
    expect(await call('chat.stopAnswer', { projectId: chat.projectId })).toEqual({ stopped: false })
  })
})

/** Every path under a folder with its size and mtime: any write shows. */
function fingerprint(root: string, rel = ''): string[] {
  return readdirSync(join(root, rel)).flatMap((name) => {
    const path = rel ? `${rel}/${name}` : name
    const stat = statSync(join(root, path))
    return stat.isDirectory()
      ? [path + '/', ...fingerprint(root, path)]
      : [`${path} ${stat.size} ${stat.mtimeMs} ${readFileSync(join(root, path)).length}`]
  })
}

/** A reply the fake server sends after a pause, so the task it belongs to is surely still running meanwhile. */
const late = (reply: ScriptedReply) => ({ ...reply, delayMs: 1500 }) as ScriptedReply
