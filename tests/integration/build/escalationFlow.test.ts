import { existsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { runBuild, type BuildEvent, type BuildInput } from '../../../src/main/build'
import {
  editTaskClearing,
  removeTaskClearing,
  replanTask,
  retryEscalated,
} from '../../../src/main/build/escalations'
import { addTask, queryState, queueLog, setSpec } from '../../../src/main/queue'
import { EscalationsRepo } from '../../../src/main/store/escalationsRepo'
import { RunsRepo } from '../../../src/main/store/runsRepo'
import { VerdictsRepo } from '../../../src/main/store/verdictsRepo'
import { formatVerdictBlock, type VerifyResult } from '../../../src/main/verify'
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

async function queueOne(h: LoopHarness): Promise<string> {
  if (!existsSync(join(h.dir, 'spec.md'))) {
    writeFileSync(join(h.dir, 'spec.md'), '# Hello\n')
    await setSpec({ projectDir: h.dir, spec: 'spec.md', options })
  }
  const r = await addTask({
    projectDir: h.dir,
    name: 'Write hello.txt',
    accept: ['LLM: the file says hello'],
    options,
  })
  return r.ids[0]!
}

/** runBuild in-process with the escalations store, real git, files and SQLite and the fake model. */
async function build(
  h: LoopHarness,
  outcomes: VerifyResult['outcome'][],
  extra: Partial<BuildInput> = {},
): Promise<{ result: Awaited<ReturnType<typeof runBuild>>; events: BuildEvent[] }> {
  const events: BuildEvent[] = []
  const result = await runBuild({
    projectDir: h.dir,
    logger: memoryLogger(),
    model: { provider: 'openai-compatible', model: 'fake-model', baseUrl: h.llm.baseUrl, apiKey: null },
    signal: new AbortController().signal,
    runs: h.runs,
    escalations: new EscalationsRepo(h.db),
    emit: (e) => events.push(e),
    verify: async () => verdict(outcomes.shift() ?? 'PASS', 'hello.txt is wrong'),
    ...extra,
  })
  return { result, events }
}

describe('escalations outlive the build; a re-plan is not a failure', { timeout: 120_000 }, () => {
  const t = loopFixture()

  it('stuck → re-plan → stuck again escalates for good: the next build spends nothing; an edit of the notes ends it', async () => {
    const id = await queueOne(t.h)
    const escalations = new EscalationsRepo(t.h.db)
    const stuckAttempt = [parsed({ type: 'bugfix' }), ...Array.from({ length: 6 }, () => say('thinking'))]
    t.llm.enqueue(...stuckAttempt, ...stuckAttempt)
    const first = await build(t.h, [], { maxIterations: 10 })
    expect(first.result).toMatchObject({ status: 'escalated', taskId: id })
    expect(escalations.open(t.h.dir, id)).toMatchObject({
      kind: 'stuck',
      rolledBackTo: 'task-1-pre',
      safetyTag: expect.stringMatching(/^safety-/),
      message: expect.stringContaining('got stuck again after a re-plan'),
    })

    const calls = t.llm.requests.length
    t.llm.enqueue(...writeAndFinish('hello\n'))
    const second = await build(t.h, [])
    expect(second.result).toMatchObject({ status: 'escalated', taskId: id, accepted: [] })
    expect(second.result.message).toContain(`${id} "Write hello.txt" is escalated`)
    expect(second.result.message).toContain('got stuck again after a re-plan from scratch')
    expect(t.llm.requests).toHaveLength(calls)
    expect(second.events.some((e) => e.type === 'build.attempt')).toBe(false)

    // A priority change does not answer the escalation; new notes do.
    await editTaskClearing({ projectDir: t.h.dir, escalations, id, priority: 'high', options })
    expect(escalations.open(t.h.dir, id)).not.toBeNull()
    await editTaskClearing({
      projectDir: t.h.dir,
      escalations,
      id,
      notes: 'Just write the file, no investigation.',
      options,
    })
    expect(escalations.open(t.h.dir, id)).toBeNull()
    const third = await build(t.h, ['PASS'])
    expect(third.result).toMatchObject({ status: 'complete', accepted: [id] })
  })

  it('one escalated task does not stop the queue: it and its dependants are skipped, said, and the rest is built', async () => {
    const stuck = await queueOne(t.h)
    const escalations = new EscalationsRepo(t.h.db)
    escalations.escalate({
      projectId: null,
      projectPath: t.h.dir,
      taskId: stuck,
      kind: 'failures',
      message: 'failed 3 times',
      failures: 3,
      rolledBackTo: null,
      safetyTag: null,
    })
    const waiting = (
      await addTask({ projectDir: t.h.dir, name: 'Greet in hello.txt', deps: [stuck], options })
    ).ids[0]!
    const free = (
      await addTask({
        projectDir: t.h.dir,
        name: 'Write other.txt',
        accept: ['LLM: the file exists'],
        options,
      })
    ).ids[0]!
    t.llm.enqueue(
      parsed({ type: 'fresh', title: 'Write other.txt' }),
      tools(
        ['write_file', { path: 'other.txt', content: 'x\n' }],
        ['mark_complete', { summary: 'Wrote it.' }],
      ),
    )
    const { result, events } = await build(t.h, ['PASS'])
    expect(result).toMatchObject({ status: 'escalated', taskId: stuck, accepted: [free] })
    expect(result.message).toContain(`Built and verified 1 task: ${free}.`)
    expect(result.message).toContain(
      `Skipped 2 tasks that wait for a person:\n${stuck} "Write hello.txt" is escalated`,
    )
    expect(result.message).toContain(
      `\n${waiting} "Greet in hello.txt" depends on ${stuck}, which waits for a person.`,
    )
    expect(
      events.filter((e) => e.type === 'build.skipped').map((e) => (e as { taskId: string }).taskId),
    ).toEqual([stuck, waiting])
    expect(
      events.filter((e) => e.type === 'build.attempt').map((e) => (e as { taskId: string }).taskId),
    ).toEqual([free])
    expect(existsSync(join(t.h.dir, 'other.txt'))).toBe(true)
  })

  it('a removed task takes its escalation along; a retry needs an escalated task of the queue', async () => {
    const id = await queueOne(t.h)
    const escalations = new EscalationsRepo(t.h.db)
    t.llm.enqueue(...writeAndFinish('a\n'), ...writeAndFinish('b\n'), ...writeAndFinish('c\n'))
    const first = await build(t.h, ['FAIL', 'FAIL', 'FAIL'])
    expect(first.result).toMatchObject({ status: 'escalated', taskId: id })
    expect(escalations.open(t.h.dir, id)).toMatchObject({ kind: 'failures', failures: 3 })
    expect(existsSync(join(t.h.dir, 'hello.txt'))).toBe(false)

    // An escalation whose task left plan.jsonl outside the panel (accepted or cancelled by hand) ends with the
    // next build, which starts nothing here: its one task is escalated.
    escalations.escalate({
      ...escalations.open(t.h.dir, id)!,
      projectId: null,
      projectPath: t.h.dir,
      taskId: 't-gone',
    })
    const calls = t.llm.requests.length
    expect((await build(t.h, [])).result).toMatchObject({ status: 'escalated', taskId: id })
    expect(t.llm.requests).toHaveLength(calls)
    expect(escalations.listOpen(t.h.dir).map((e) => e.taskId)).toEqual([id])

    await expect(retryEscalated({ projectDir: t.h.dir, escalations, id: 't-none' })).rejects.toThrow(
      /t-none is not in the queue/,
    )
    await removeTaskClearing({ projectDir: t.h.dir, escalations, id, options })
    expect(escalations.listOpen(t.h.dir)).toEqual([])
    expect((await queryState({ projectDir: t.h.dir })).tasks).toEqual([])
  })

  it('a re-plan asked for by the user is recorded as a rejection but does not count toward the failures', async () => {
    const id = await queueOne(t.h)
    const escalations = new EscalationsRepo(t.h.db)
    // One real failure, then NEEDS_HUMAN: the task is done and waits for a person.
    t.llm.enqueue(...writeAndFinish('helo\n'), ...writeAndFinish('hello?\n'))
    const first = await build(t.h, ['FAIL', 'NEEDS_HUMAN'])
    expect(first.result).toMatchObject({ status: 'paused', taskId: id })

    const r = await replanTask({ projectDir: t.h.dir, escalations, id, options })
    expect(r.state.tasks.map((x) => [x.id, x.status])).toEqual([[id, 'pending']])
    expect(r.state.tombstones).toHaveLength(2)
    expect(r.state.tasks[0]!.reject).toMatch(/^Re-plan \(asked by the user, not a failure\)/)
    // The history keeps it, as a rejection with the re-plan's reason.
    const log = await queueLog({ projectDir: t.h.dir, all: true })
    if (log.kind !== 'tasks') throw new Error('expected the task history')
    expect(log.tasks[0]!.rejections.map((x) => x.reason)).toEqual([
      expect.stringContaining('hello.txt is wrong'),
      expect.stringMatching(/^Re-plan/),
    ])
    // Only a done task can be re-planned.
    await expect(replanTask({ projectDir: t.h.dir, escalations, id, options })).rejects.toThrow(/is not done/)

    // Two tombstones, one a re-plan: the build counts one failure, so a FAIL is retried (had the re-plan counted,
    // this FAIL would be the third failure: rolled back and escalated).
    t.llm.enqueue(...writeAndFinish('hi\n'), ...writeAndFinish('hello\n'))
    const second = await build(t.h, ['FAIL', 'PASS'])
    const rejected = second.events.find((e) => e.type === 'build.rejected')
    expect(rejected).toMatchObject({ failures: 2 })
    expect(second.result).toMatchObject({ status: 'complete', accepted: [id] })
    // The re-planned attempt read the note as its feedback.
    expect(t.llm.requests.some((q) => JSON.stringify(q.body).includes('Re-plan (asked by the user'))).toBe(
      true,
    )
  })

  it('every verification call, the repair included, is an llm_usage row with tokens and cost on the task’s run', async () => {
    const id = await queueOne(t.h)
    const model = {
      provider: 'openai-compatible' as const,
      model: 'gpt-4o-mini',
      baseUrl: t.h.llm.baseUrl,
      apiKey: null,
    }
    t.llm.enqueue(...writeAndFinish('hello\n'))
    const usage = { prompt_tokens: 1_000, completion_tokens: 100 }
    const verdicts = new VerdictsRepo(t.h.db)
    const result = await runBuild({
      projectDir: t.h.dir,
      logger: memoryLogger(),
      model,
      signal: new AbortController().signal,
      runs: t.h.runs,
      verdicts,
      emit: (e) => {
        // A first answer that does not parse, then the repaired block: two verdict calls.
        if (e.type === 'verify.started') {
          t.llm.enqueue(
            withUsage(say('YES, it says hello.'), usage),
            withUsage(
              { kind: 'text', text: formatVerdictBlock('AC1', e.nonce, 'YES', 'hello.txt says hello') },
              usage,
            ),
          )
        }
      },
    })
    expect(result).toMatchObject({ status: 'complete', accepted: [id] })
    const rows = t.h.db
      .prepare(
        `SELECT run_id AS runId, task, iteration, purpose, model, input_tokens AS i, output_tokens AS o,
           cost_usd AS usd FROM llm_usage WHERE purpose = 'verify' ORDER BY id`,
      )
      .all() as { runId: number; task: number; iteration: null; usd: number }[]
    const run = t.h.runs.latestRun(t.h.dir, 1)!
    // gpt-4o-mini: $0.15 per million input tokens, $0.60 per million output tokens.
    const each = (1_000 * 0.15 + 100 * 0.6) / 1e6
    expect(rows).toEqual([
      {
        runId: run.id,
        task: 1,
        iteration: null,
        purpose: 'verify',
        model: 'gpt-4o-mini',
        i: 1_000,
        o: 100,
        usd: each,
      },
      {
        runId: run.id,
        task: 1,
        iteration: null,
        purpose: 'verify',
        model: 'gpt-4o-mini',
        i: 1_000,
        o: 100,
        usd: each,
      },
    ])
    // The verdict's stored cost is the same two calls; the run's cost (its card) includes them.
    const ac1 = verdicts.listByTask(t.h.dir, id).find((v) => v.ref === 'AC1')!
    expect(ac1.costUsd).toBeCloseTo(2 * each, 10)
    const lifecycle = t.h.db
      .prepare(`SELECT SUM(cost_usd) AS usd FROM llm_usage WHERE run_id = ? AND purpose != 'verify'`)
      .get(run.id) as { usd: number }
    expect(new RunsRepo(t.h.db).costForRun(run.id).usd).toBeCloseTo(lifecycle.usd + 2 * each, 10)
    expect(result.costUsd).toBeCloseTo(lifecycle.usd + 2 * each, 8)
  })
})
