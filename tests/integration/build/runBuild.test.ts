import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { runBuild, type BuildEvent, type BuildInput } from '../../../src/main/build'
import { addIssue, addTask, queryState, queueLog, setSpec } from '../../../src/main/queue'
import { VerdictsRepo } from '../../../src/main/store/verdictsRepo'
import { formatVerdictBlock, type VerifyRequest, type VerifyResult } from '../../../src/main/verify'
import { loopFixture, parsed, say, tools, withUsage, type LoopHarness } from '../loop/harness'
import { memoryLogger } from '../../../src/main/workspace/logFile'

/** The queue's changes in these tests: failures they survive are kept in memory. */
const options = { logger: memoryLogger() }

const verdict = (outcome: VerifyResult['outcome'], reason = 'checked'): VerifyResult => ({
  outcome,
  nonce: 'ABC123',
  verdicts: [
    {
      ref: 'AC1',
      kind: 'LLM',
      text: 'the file says hello',
      answer: outcome === 'PASS' ? 'YES' : outcome === 'FAIL' ? 'NO' : 'NEEDS_HUMAN',
      reason,
      costUsd: 0,
    },
  ],
  costUsd: 0,
  feedback: outcome === 'PASS' ? '' : `# Verification\n\n- AC1: ${reason}\n`,
  modelCalls: 1,
  warnings: [],
})

const writeAndFinish = (content: string) => [
  parsed({ type: 'fresh', title: 'Write hello.txt' }),
  tools(
    ['write_file', { path: 'hello.txt', content }],
    ['mark_complete', { summary: 'Wrote hello.txt as asked.' }],
  ),
]

async function queueOne(h: LoopHarness, extra: { deps?: string[]; name?: string } = {}): Promise<string> {
  if (!existsSync(join(h.dir, 'spec.md'))) {
    writeFileSync(join(h.dir, 'spec.md'), '# Hello\n')
    await setSpec({ projectDir: h.dir, spec: 'spec.md', options })
  }
  const r = await addTask({
    projectDir: h.dir,
    name: extra.name ?? 'Write hello.txt',
    accept: ['LLM: the file says hello'],
    ...(extra.deps ? { deps: extra.deps } : {}),
    options,
  })
  return r.ids[0]!
}

/** runBuild in-process with a scripted verification, against the fake model and real git, files and SQLite. */
async function build(
  h: LoopHarness,
  verify: (req: VerifyRequest) => VerifyResult,
  extra: Partial<BuildInput> = {},
): Promise<{
  result: Awaited<ReturnType<typeof runBuild>>
  events: BuildEvent[]
  requests: VerifyRequest[]
}> {
  const events: BuildEvent[] = []
  const requests: VerifyRequest[] = []
  const result = await runBuild({
    projectDir: h.dir,
    logger: memoryLogger(),
    model: { provider: 'openai-compatible', model: 'fake-model', baseUrl: h.llm.baseUrl, apiKey: null },
    signal: new AbortController().signal,
    runs: h.runs,
    emit: (e) => events.push(e),
    verify: async (req) => {
      requests.push(req)
      return verify(req)
    },
    ...extra,
  })
  return { result, events, requests }
}

const notificationsOf = (h: LoopHarness) =>
  existsSync(join(h.dir, '.ralph/notifications')) ? readdirSync(join(h.dir, '.ralph/notifications')) : []

describe('runBuild: pauses, re-plans, modes and budgets', { timeout: 120_000 }, () => {
  const t = loopFixture()

  it('verifies between the task snapshots and pauses on NEEDS_HUMAN, the task done for a person', async () => {
    const id = await queueOne(t.h)
    t.llm.enqueue(...writeAndFinish('hello\n'))
    const { result, requests } = await build(t.h, () => verdict('NEEDS_HUMAN', 'cannot tell'))
    expect(result).toMatchObject({ status: 'paused', taskId: id, accepted: [] })
    expect(requests).toHaveLength(1)
    expect(requests[0]).toMatchObject({
      fromTag: 'task-1-pre',
      toTag: 'task-1-post',
      task: { id, name: 'Write hello.txt', accept: ['LLM: the file says hello'] },
    })
    expect(typeof requests[0]!.runId).toBe('number')
    const state = await queryState({ projectDir: t.h.dir })
    expect(state.tasks.map((x) => [x.id, x.status])).toEqual([[id, 'done']])
    const note = notificationsOf(t.h).find((n) => n.startsWith('needs-human-'))
    expect(readFileSync(join(t.h.dir, '.ralph/notifications', note!), 'utf8')).toContain('cannot tell')
    // task.md carried the queue task for every iteration.
    expect(readFileSync(join(t.h.dir, '.ralph/task.md'), 'utf8')).toContain(`## Queue task ${id}`)

    // A done task waits for its decision: the next build refuses, saying how to decide.
    await expect(build(t.h, () => verdict('PASS'))).rejects.toThrow(/ralph task accept/)
  })

  it('re-plans a stuck task once from scratch, then escalates when it gets stuck again', async () => {
    const id = await queueOne(t.h)
    // Answers without tools repeat the same (empty) signature: two stalls per attempt end it, rolled back.
    const stuckAttempt = [parsed({ type: 'bugfix' }), ...Array.from({ length: 6 }, () => say('thinking'))]
    t.llm.enqueue(...stuckAttempt, ...stuckAttempt)
    const { result, events, requests } = await build(t.h, () => verdict('PASS'), { maxIterations: 10 })
    expect(requests).toHaveLength(0)
    expect(result).toMatchObject({ status: 'escalated', taskId: id })
    const own = events.filter((e) => e.type.startsWith('build.')).map((e) => e.type)
    expect(own).toEqual([
      'build.started',
      'build.attempt',
      'build.replan',
      'build.attempt',
      'build.rollback',
      'build.notification',
      // The escalated task is skipped; nothing else is left to build.
      'build.skipped',
      'build.finished',
    ])
    // The re-planned attempt was told to start over.
    const second = t.h.llm.requests
      .map((r) => JSON.stringify(r.body))
      .find((b) => b.includes('Re-plan from scratch'))
    expect(second).toBeDefined()
    expect(notificationsOf(t.h).some((n) => n.startsWith('escalation-'))).toBe(true)
    expect((await queryState({ projectDir: t.h.dir })).tasks.map((x) => x.status)).toEqual(['pending'])
  })

  it('interactive mode asks before accepting each task; a refusal pauses with the task done', async () => {
    const first = await queueOne(t.h)
    const second = await queueOne(t.h, { name: 'Write it again', deps: [first] })
    t.llm.enqueue(...writeAndFinish('hello\n'), ...writeAndFinish('hello again\n'))
    const asked: string[] = []
    const { result } = await build(t.h, () => verdict('PASS'), {
      mode: 'interactive',
      approve: async (q) => {
        asked.push(q)
        return asked.length === 1
      },
    })
    expect(asked).toEqual([
      `${first} passed verification. Accept it and go on?`,
      `${second} passed verification. Accept it and go on?`,
    ])
    expect(result).toMatchObject({ status: 'paused', accepted: [first], taskId: second })
    expect((await queryState({ projectDir: t.h.dir })).tasks.map((x) => [x.id, x.status])).toEqual([
      [second, 'done'],
    ])
    expect(notificationsOf(t.h).some((n) => n.startsWith('approval-'))).toBe(true)
  })

  it('warns at 75% of the cost budget and stops at 100% before the next task', async () => {
    const first = await queueOne(t.h)
    const second = await queueOne(t.h, { name: 'Second', deps: [first] })
    const third = await queueOne(t.h, { name: 'Third', deps: [second] })
    // gpt-4o-mini is priced ($0.15 per million input tokens): each call below costs $0.0075.
    const usage = { prompt_tokens: 50_000, completion_tokens: 0 }
    const priced = (file: string) => [
      withUsage(parsed({ type: 'fresh', title: `Write ${file}` }), usage),
      withUsage(
        tools(
          ['write_file', { path: file, content: 'x' }],
          ['mark_complete', { summary: `Wrote ${file} fully.` }],
        ),
        usage,
      ),
    ]
    // The third task never starts, so it gets no replies.
    t.llm.enqueue(...priced('a.txt'), ...priced('b.txt'))
    const { result, events } = await build(t.h, () => verdict('PASS'), {
      model: { provider: 'openai-compatible', model: 'gpt-4o-mini', baseUrl: t.h.llm.baseUrl, apiKey: null },
      budget: { maxCostUsd: 0.018 },
    })
    const budget = events.flatMap((e) => (e.type === 'build.budget' ? [`${e.level} ${e.kind}`] : []))
    expect(budget).toEqual(['warn cost', 'stop cost'])
    expect(result).toMatchObject({ status: 'budget', accepted: [first, second], taskId: third })
    expect(result.costUsd).toBeCloseTo(0.03, 6)
    const notes = notificationsOf(t.h)
    expect(notes.some((n) => n.startsWith('budget-warn-'))).toBe(true)
    expect(notes.some((n) => n.startsWith('budget-stop-'))).toBe(true)
    expect((await queryState({ projectDir: t.h.dir })).tasks.map((x) => [x.id, x.status])).toEqual([
      [third, 'pending'],
    ])
  })

  it('records a hand-edited plan.jsonl before building (seed 001 pre-flight); "n" aborts, changing nothing', async () => {
    const id = await queueOne(t.h)
    const file = join(t.h.dir, '.ralph/plan.jsonl')
    const edited = readFileSync(file, 'utf8').replace('Write hello.txt', 'Write hello.txt in English')
    writeFileSync(file, edited)
    await expect(build(t.h, () => verdict('PASS'), { confirmPlanCommit: async () => false })).rejects.toThrow(
      /Build aborted: .ralph\/plan.jsonl has changes/,
    )
    expect(readFileSync(file, 'utf8')).toBe(edited)

    t.llm.enqueue(...writeAndFinish('hello\n'))
    const { result, events } = await build(t.h, () => verdict('PASS'), {
      confirmPlanCommit: async () => true,
    })
    expect(result).toMatchObject({ status: 'complete', accepted: [id] })
    expect(events[0]).toMatchObject({
      type: 'build.plan-committed',
      commit: expect.stringMatching(/^[0-9a-f]{40}$/),
    })
    const log = await queueLog({ projectDir: t.h.dir })
    if (log.kind !== 'changes') throw new Error('expected the recent changes')
    expect(log.entries.map((e) => e.op)).toContain('update-plan')
    // The build's task.md named the edited task.
    expect(t.h.llm.requests.some((r) => JSON.stringify(r.body).includes('Write hello.txt in English'))).toBe(
      true,
    )
  })

  it('stops a running task at the time budget, its work kept and the queue task pending', async () => {
    const id = await queueOne(t.h)
    t.llm.enqueue(parsed({ type: 'fresh', title: 'Slow' }), { kind: 'hang' })
    const { result, events } = await build(t.h, () => verdict('PASS'), { budget: { maxMinutes: 0.03 } })
    expect(result).toMatchObject({ status: 'budget', taskId: id, accepted: [] })
    expect(events.some((e) => e.type === 'task.failed' && e.reason === 'stopped')).toBe(true)
    expect(events.filter((e) => e.type === 'build.budget').map((e) => (e as { kind: string }).kind)).toEqual([
      'time',
    ])
    expect((await queryState({ projectDir: t.h.dir })).tasks.map((x) => x.status)).toEqual(['pending'])
    expect(notificationsOf(t.h).some((n) => n.startsWith('budget-stop-'))).toBe(true)
  })

  it('pauses on a task the parser cannot understand; the next build starts it afresh, not as an answer', async () => {
    const id = await queueOne(t.h)
    t.llm.enqueue(parsed({ type: 'needs-clarification', clarification: 'Which greeting?' }))
    const paused = await build(t.h, () => verdict('PASS'))
    expect(paused.result).toMatchObject({ status: 'paused', taskId: id })
    expect(paused.result.message).toContain('Which greeting?')
    expect((await queryState({ projectDir: t.h.dir })).tasks.map((x) => x.status)).toEqual(['pending'])

    const issue = (await addIssue({ projectDir: t.h.dir, desc: 'Greetings are not translated', options }))
      .ids[0]!
    t.llm.enqueue(...writeAndFinish('hello\n'))
    const again = await build(t.h, () => verdict('PASS'))
    expect(again.result).toMatchObject({ status: 'complete', accepted: [id] })
    // Open issues are the INVESTIGATE stage's: the build names them rather than guessing tasks.
    expect(again.result.message).toContain(
      `1 issue still open (INVESTIGATE): ${issue} Greetings are not translated`,
    )
    const started = again.events.find((e) => e.type === 'task.started')
    expect(started).toMatchObject({ task: 2, continued: false })
  })

  it('with the real verification: an LLM criterion answered NO is retried with its reason, then YES accepts', async () => {
    const id = await queueOne(t.h)
    t.llm.enqueue(...writeAndFinish('helo\n'))
    const answers: ['YES' | 'NO', string][] = [
      ['NO', "hello.txt says 'helo', not hello"],
      ['YES', "hello.txt says 'hello'"],
    ]
    const events: BuildEvent[] = []
    const verdicts = new VerdictsRepo(t.h.db)
    const result = await runBuild({
      projectDir: t.h.dir,
      logger: memoryLogger(),
      model: { provider: 'openai-compatible', model: 'fake-model', baseUrl: t.h.llm.baseUrl, apiKey: null },
      signal: new AbortController().signal,
      runs: t.h.runs,
      verdicts,
      emit: (e) => {
        events.push(e)
        // The nonce is new per verification: the verdict is queued when it is announced, before the model call.
        if (e.type === 'verify.started') {
          const [answer, reason] = answers.shift()!
          t.llm.enqueue({ kind: 'text', text: formatVerdictBlock('AC1', e.nonce, answer, reason) })
          if (answer === 'NO') t.llm.enqueue(...writeAndFinish('hello\n'))
        }
      },
    })
    expect(result).toMatchObject({ status: 'complete', accepted: [id] })
    const outcomes = events.flatMap((e) => (e.type === 'verify.completed' ? [e.outcome] : []))
    expect(outcomes).toEqual(['FAIL', 'PASS'])
    const retryPrompt = t.h.llm.requests
      .map((r) => JSON.stringify(r.body))
      .find((b) => b.includes('was rejected') && b.includes("hello.txt says 'helo', not hello"))
    expect(retryPrompt).toBeDefined()
    const stored = verdicts.listByTask(t.h.dir, id).filter((v) => v.ref === 'AC1')
    expect(stored.map((v) => [v.answer, v.reason])).toEqual([
      ['NO', "hello.txt says 'helo', not hello"],
      ['YES', "hello.txt says 'hello'"],
    ])
    expect(new Set(stored.map((v) => v.nonce)).size).toBe(2)
    expect(readFileSync(join(t.h.dir, 'hello.txt'), 'utf8')).toBe('hello\n')
  })

  it('stops between tasks when the signal aborts after one was accepted', async () => {
    const first = await queueOne(t.h)
    const second = await queueOne(t.h, { name: 'Second', deps: [first] })
    t.llm.enqueue(...writeAndFinish('hello\n'))
    const controller = new AbortController()
    const events: BuildEvent[] = []
    const { result } = await build(t.h, () => verdict('PASS'), {
      signal: controller.signal,
      emit: (e) => {
        events.push(e)
        if (e.type === 'build.accepted') controller.abort()
      },
    })
    expect(result).toMatchObject({ status: 'stopped', accepted: [first] })
    expect(events.filter((e) => e.type === 'build.attempt')).toHaveLength(1)
    expect((await queryState({ projectDir: t.h.dir })).tasks.map((x) => [x.id, x.status])).toEqual([
      [second, 'pending'],
    ])
  })
})
