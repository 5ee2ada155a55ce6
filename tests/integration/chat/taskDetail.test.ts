import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { RunsRepo } from '../../../src/main/store/runsRepo'
import type { ChatMessageDto, IterationDetailDto } from '../../../src/shared/api/chat'
import type { EventEnvelope } from '../../../src/shared/api/contract'
import { useChatCore } from '../../helpers/chatCore'
import { parsed, say, tools, withUsage } from '../loop/harness'

// A card's iterations (chat.taskDetail) and an Ask answer's usage, on a real core: real SQLite, the real loop,
// real HTTP to the fake LLM server; and both the same after the core is closed and opened again.
describe('task detail and answer usage', () => {
  const chat = useChatCore()
  const { call } = chat
  const history = () =>
    call<{ messages: ChatMessageDto[] }>('chat.history', { projectId: chat.projectId }).then(
      (h) => h.messages,
    )
  const next = (name: string) =>
    new Promise<EventEnvelope>((resolve) => {
      const off = chat.core.events.subscribe((e) => {
        if (e.name === name) {
          off()
          resolve(e)
        }
      })
    })

  it('gives a task’s iterations in order: the model’s text, tool calls with arguments and answers, gates', async () => {
    const long = 'x'.repeat(5_000)
    chat.llm.enqueue(
      parsed({ type: 'fresh', title: 'Write x', scope: { preserve: [], affectedFiles: ['x.txt'] } }),
      {
        kind: 'tools',
        text: 'I will **write** x.txt first.',
        calls: [
          { name: 'write_file', arguments: { path: 'x.txt', content: long } },
          { name: 'read_file', arguments: { path: 'missing.txt' } },
        ],
      },
      tools(['mark_complete', { summary: 'Wrote x.txt.' }]),
    )
    const done = next('loop.finished')
    await call('chat.send', { projectId: chat.projectId, mode: 'task', text: 'write x.txt' })
    expect((await done).payload).toMatchObject({ status: 'complete' })
    const card = (await history())[0]!.card!
    const detail = await call<{ runId: number; iterations: IterationDetailDto[]; earlier: number }>(
      'chat.taskDetail',
      {
        projectId: chat.projectId,
        runId: card.runId,
      },
    )
    // One iteration: the model's turns go on within it until it marks the task complete.
    expect(detail.iterations.map((i) => i.number)).toEqual([1])
    expect(detail.earlier).toBe(0)
    const [first] = detail.iterations
    expect(first!.entries.map((e) => (e.kind === 'tool' ? e.call.name : e.kind))).toEqual([
      'text',
      'write_file',
      'read_file',
      'mark_complete',
    ])
    expect(first!.entries[0]).toEqual({ kind: 'text', text: 'I will **write** x.txt first.' })
    const write = first!.entries[1]!
    if (write.kind !== 'tool') throw new Error('expected a tool call')
    expect(write.call).toMatchObject({ seq: 1, name: 'write_file', path: 'x.txt', ok: true })
    expect(write.call.result).toEqual(expect.any(String))
    expect(write.call.durationMs).toBeGreaterThanOrEqual(0)
    // Long arguments are cut, and the card says by how much.
    expect(write.call.args.length).toBe(2_000)
    expect(write.call.args.length + write.call.argsOmitted).toBeGreaterThan(5_000)
    const read = first!.entries[2]!
    if (read.kind !== 'tool') throw new Error('expected a tool call')
    expect(read.call).toMatchObject({ seq: 2, name: 'read_file', path: 'missing.txt', ok: false })
    expect(read.call.result).toMatch(/missing\.txt/)
    expect(first!.gates.map((g) => g.severity)).not.toContain('failure')
    expect(first!.gates.length).toBeGreaterThan(0)
    expect(first!.outcome).toEqual(expect.any(String))

    // What the journal kept is in SQLite: a reopened core gives the same.
    await chat.reopen()
    expect(await call('chat.taskDetail', { projectId: chat.projectId, runId: card.runId })).toEqual(detail)
  })

  it('gives the latest 100 iterations of a very long task, and says how many came before', async () => {
    const runs = new RunsRepo(chat.core.services.db)
    const runId = runs.startRun({
      projectId: chat.projectId,
      projectPath: chat.dir,
      task: 1,
      message: 'long',
    })
    for (let i = 1; i <= 130; i++) {
      const it = runs.startIteration(runId, i, 'build', 100)
      runs.recordToolCall(it, 1, {
        name: 'read_file',
        argsJson: JSON.stringify({ path: `f${i}.ts` }),
        ok: true,
        resultBytes: 10,
        durationMs: 2,
        error: null,
      })
      runs.endIteration(it, { signature: `s${i}`, toolCalls: 1, outcome: 'continue' })
    }
    const detail = await call<{ iterations: IterationDetailDto[]; earlier: number }>('chat.taskDetail', {
      projectId: chat.projectId,
      runId,
    })
    expect(detail.earlier).toBe(30)
    expect(detail.iterations.map((i) => i.number)).toEqual(Array.from({ length: 100 }, (_, k) => k + 31))
    expect(detail.iterations[0]!.entries).toEqual([
      expect.objectContaining({
        kind: 'tool',
        call: expect.objectContaining({ path: 'f31.ts', result: null }),
      }),
    ])
  })

  it('says when the run is not the project’s', async () => {
    const other = join(chat.work, 'other')
    mkdirSync(other)
    const otherId = (await call<{ id: number }>('projects.open', { path: other })).id
    chat.llm.enqueue(
      parsed({ type: 'fresh', title: 'Other' }),
      tools(['mark_complete', { summary: 'Done.' }]),
    )
    const done = next('loop.finished')
    await call('chat.send', { projectId: otherId, mode: 'task', text: 'do it' })
    await done
    const runId = (await call<{ messages: ChatMessageDto[] }>('chat.history', { projectId: otherId }))
      .messages[0]!.card!.runId
    const result = await chat.core.dispatch('chat.taskDetail', { projectId: chat.projectId, runId })
    expect(result).toMatchObject({ ok: false, error: { kind: 'not-found' } })
  })

  it('records an Ask answer’s tokens and cost with the tasks’ usage, and shows them on the answer', async () => {
    chat.llm.enqueue(
      withUsage(say('It is an empty project.'), { prompt_tokens: 1200, completion_tokens: 80 }),
    )
    const changed = new Promise<void>((resolve) => {
      const off = chat.core.events.subscribe(async (e) => {
        if (e.name !== 'chat.changed') return
        const answer = (await history()).find((m) => m.kind === 'answer')
        if (answer?.text) {
          off()
          resolve()
        }
      })
    })
    await call('chat.send', { projectId: chat.projectId, mode: 'ask', text: 'What is this?' })
    await changed
    const answer = (await history()).find((m) => m.kind === 'answer')!
    expect(answer.usage).toEqual({
      usd: 0,
      inputTokens: 1200,
      outputTokens: 80,
      cacheReadTokens: 0,
      calls: 1,
      priced: false,
    })
    const rows = chat.core.services.db
      .prepare(
        "SELECT run_id, purpose, model, input_tokens, output_tokens FROM llm_usage WHERE purpose = 'ask'",
      )
      .all()
    expect(rows).toEqual([
      { run_id: null, purpose: 'ask', model: 'fake-model', input_tokens: 1200, output_tokens: 80 },
    ])
    // Messages that are not answers carry no usage.
    expect((await history()).find((m) => m.kind === 'user')!.usage).toBeUndefined()

    await chat.reopen()
    expect((await history()).find((m) => m.kind === 'answer')!.usage).toEqual(answer.usage)
  })
})
