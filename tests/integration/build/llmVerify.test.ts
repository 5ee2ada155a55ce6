// LLM-criterion verification end to end through the built CLI: `ralph build --json` in a child process, the real
// provider code over HTTP to the fake LLM server (whose `verdict` replies are sealed with the nonce each request
// asks for), the real verdict parser, real git snapshots and plan.jsonl, verdicts in the real SQLite file.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { addTask, queryState, queueLog, setSpec } from '../../../src/main/queue'
import { openDatabase } from '../../../src/main/store/database'
import {
  startFakeLlmServer,
  verdictSealOf,
  type FakeLlmServer,
  type ScriptedReply,
  type ScriptedUsage,
  type VerdictFlaw,
} from '../../fixtures/fakeLlmServer'
import { runCli } from '../../helpers/cli'
import { makeTempDir } from '../../helpers/tempDir'
import { cliEnv, ndjson } from './buildCliFixture'
import { parsed, say, tools } from '../loop/harness'
import { memoryLogger } from '../../../src/main/workspace/logFile'

/** The queue's changes in these tests: failures they survive are kept in memory. */
const options = { logger: memoryLogger() }

/** A priced model id (gpt-4o-mini: $0.15 / $0.60 per 1M tokens), so every verdict has a cost to store. */
const MODEL = 'gpt-4o-mini'
const JUDGE_USAGE: ScriptedUsage = { prompt_tokens: 1200, completion_tokens: 40 }
/** One judge call: (1200 × 0.15 + 40 × 0.60) / 1M dollars. */
const JUDGE_COST = (1200 * 0.15 + 40 * 0.6) / 1_000_000

const CRITERION = 'hello.txt greets the world by name'
const NO_REASON = "hello.txt says only 'hello' and never names the world"
const YES_REASON = "hello.txt reads 'hello world', naming the world"

/** One attempt: the parse, then one iteration that writes hello.txt and marks the task complete. */
const attempt = (content: string): ScriptedReply[] => [
  parsed({ type: 'fresh', title: 'Write hello.txt' }),
  tools(
    ['write_file', { path: 'hello.txt', content: `${content}\n` }],
    ['mark_complete', { summary: 'Wrote hello.txt as asked.' }],
  ),
]

const verdict = (answer: 'YES' | 'NO', reason: string, flaw?: VerdictFlaw): ScriptedReply => ({
  kind: 'verdict',
  answer,
  reason,
  usage: JUDGE_USAGE,
  ...(flaw ? { flaw } : {}),
})

type Event = {
  type: string
  taskId?: string
  outcome?: string
  nonce?: string
  status?: string
  costUsd?: number
  repaired?: boolean
  verdict?: { ref: string; kind: string; answer: string; reason: string; costUsd: number }
}

interface Chat {
  messages: { role: string; content: unknown }[]
}

interface VerdictRow {
  taskId: string
  runId: number | null
  nonce: string
  ref: string
  kind: string
  criterion: string
  answer: string
  reason: string
  costUsd: number
}

describe('ralph build with an LLM criterion (the CLI, as a child process)', { timeout: 180_000 }, () => {
  let llm: FakeLlmServer
  let project: ReturnType<typeof makeTempDir>
  let home: ReturnType<typeof makeTempDir>
  let env: NodeJS.ProcessEnv
  beforeAll(async () => {
    llm = await startFakeLlmServer()
  })
  afterAll(() => llm.close())
  beforeEach(async () => {
    llm.requests.length = 0
    // Any request beyond the script gets a reply no step accepts as its own, and the counts below catch it.
    llm.fallback = say('Nothing more.')
    project = makeTempDir('ralph-build-llm-')
    home = makeTempDir('ralph-home-')
    env = cliEnv(home.path, llm.baseUrl, MODEL)
    writeFileSync(join(project.path, 'spec.md'), '# Hello\n')
    await setSpec({ projectDir: project.path, spec: 'spec.md', options })
  })
  afterEach(() => {
    project.cleanup()
    home.cleanup()
  })

  const addHello = async () =>
    (
      await addTask({
        projectDir: project.path,
        name: 'Write hello.txt',
        notes: 'Greet the world in hello.txt.',
        accept: [`LLM: ${CRITERION}`],
        options,
      })
    ).ids[0]!

  const build = () => runCli(['build', '--json', '--project', project.path], { env })

  /** The chat requests the server received, with the criterion and nonce of those that were verifications. */
  const chats = () =>
    llm.requests
      .filter((r) => r.path === '/v1/chat/completions')
      .map((r) => ({ body: r.body as Chat, seal: verdictSealOf(r.body), text: JSON.stringify(r.body) }))

  const verdictRows = (): VerdictRow[] => {
    const db = openDatabase(join(home.path, 'ralph.db'))
    try {
      return db
        .prepare(
          `SELECT task_id AS taskId, run_id AS runId, nonce, ref, kind, criterion, answer, reason,
             cost_usd AS costUsd FROM verdicts ORDER BY id`,
        )
        .all() as VerdictRow[]
    } finally {
      db.close()
    }
  }

  it('NO with a reason is a FAIL whose reason the retry reads; YES on the retry is a PASS and the task is accepted', async () => {
    const id = await addHello()
    llm.enqueue(
      ...attempt('hello'),
      verdict('NO', NO_REASON),
      ...attempt('hello world'),
      verdict('YES', YES_REASON),
    )
    const result = await build()
    expect(result.code, result.stderr + result.stdout.slice(-2000)).toBe(0)
    const events = ndjson<Event>(result.stdout)
    // The transcript the issue's closing note quotes: one FAIL, its retry, the PASS.
    mkdirSync(join(process.cwd(), 'test-results'), { recursive: true })
    writeFileSync(join(process.cwd(), 'test-results', 'build-llm-verify.ndjson'), result.stdout)

    const story = events
      .filter((e) =>
        [
          'build.attempt',
          'verify.criterion',
          'verify.completed',
          'build.rejected',
          'build.retry',
          'build.accepted',
        ].includes(e.type),
      )
      .map((e) =>
        e.type === 'verify.criterion'
          ? `${e.type} ${e.verdict!.ref} ${e.verdict!.kind} ${e.verdict!.answer}`
          : `${e.type}${e.outcome ? ` ${e.outcome}` : ''}`,
      )
    // The deterministic checks come first (no model call), then the one LLM criterion.
    const checks = ['verify.criterion blocked-paths DET YES', 'verify.criterion secrets DET YES']
    expect(story).toEqual([
      'build.attempt',
      ...checks,
      'verify.criterion AC1 LLM NO',
      'verify.completed FAIL',
      'build.rejected',
      'build.retry',
      'build.attempt',
      ...checks,
      'verify.criterion AC1 LLM YES',
      'verify.completed PASS',
      'build.accepted',
    ])
    expect(events.at(-1)).toMatchObject({ type: 'build.finished', status: 'complete', accepted: [id] })
    // Verification's calls count toward the build's cost (and so its budget): two judge calls plus the four
    // builder calls at the server's default usage (10 prompt / 5 completion tokens).
    const builderCall = (10 * 0.15 + 5 * 0.6) / 1_000_000
    expect(events.at(-1)!.costUsd).toBeCloseTo(2 * JUDGE_COST + 4 * builderCall, 8)
    expect(events.find((e) => e.type === 'build.rejected')).toMatchObject({
      reason: `AC1: ${NO_REASON}`,
    })

    // What the server received: parse, iteration, verification — twice, nothing else.
    const requests = chats()
    expect(requests.map((r) => r.seal?.ref ?? '-')).toEqual(['-', '-', 'AC1', '-', '-', 'AC1'])
    const [first, second] = [requests[2]!.seal!.nonce, requests[5]!.seal!.nonce]
    expect(first).toMatch(/^[0-9A-F]{6}$/)
    expect(second).toMatch(/^[0-9A-F]{6}$/)
    expect(second).not.toBe(first) // new per verification
    // Each verification announced the nonce its request carried.
    expect(events.filter((e) => e.type === 'verify.started').map((e) => e.nonce)).toEqual([first, second])
    // The judge was asked about this criterion with the attempt's own change as evidence, in a fresh
    // conversation (system + one user message), not the builder's.
    for (const [i, content] of [
      [2, 'hello'],
      [5, 'hello world'],
    ] as const) {
      const judge = requests[i]!.body
      expect(judge.messages.map((m) => m.role)).toEqual(['system', 'user'])
      const user = String(judge.messages[1]!.content)
      expect(user).toContain(CRITERION)
      expect(user).toContain('hello.txt')
      expect(user).toContain(`+${content}`)
    }

    // The retry read why it was rejected; the first attempt had nothing of the sort.
    expect(requests.slice(0, 2).some((r) => r.text.includes(NO_REASON))).toBe(false)
    const retryIteration = requests[4]!.text
    expect(retryIteration).toContain(NO_REASON)
    expect(retryIteration).toContain('AC1')

    // SQLite: each verdict with its nonce (the one the server saw), answer, reason and cost; the checks' verdicts
    // are sealed with the same verification's nonce and cost nothing.
    const all = verdictRows()
    expect(all.filter((r) => r.kind === 'DET').map((r) => [r.nonce, r.ref, r.answer, r.costUsd])).toEqual([
      [first, 'blocked-paths', 'YES', 0],
      [first, 'secrets', 'YES', 0],
      [second, 'blocked-paths', 'YES', 0],
      [second, 'secrets', 'YES', 0],
    ])
    const rows = all.filter((r) => r.kind === 'LLM')
    expect(rows).toEqual([
      expect.objectContaining({
        taskId: id,
        nonce: first,
        ref: 'AC1',
        kind: 'LLM',
        criterion: CRITERION,
        answer: 'NO',
        reason: NO_REASON,
      }),
      expect.objectContaining({
        taskId: id,
        nonce: second,
        ref: 'AC1',
        kind: 'LLM',
        criterion: CRITERION,
        answer: 'YES',
        reason: YES_REASON,
      }),
    ])
    for (const row of rows) {
      expect(row.costUsd).toBeCloseTo(JUDGE_COST, 10)
      expect(row.runId).not.toBeNull()
    }
    expect(rows[0]!.runId).not.toBe(rows[1]!.runId) // each attempt's run

    expect(readFileSync(join(project.path, 'hello.txt'), 'utf8')).toBe('hello world\n')
    expect((await queryState({ projectDir: project.path })).tasks).toEqual([])
    const log = await queueLog({ projectDir: project.path, all: true })
    if (log.kind !== 'tasks') throw new Error('expected the task history')
    expect(log.tasks.map((t) => [t.id, t.status, t.rejections.map((r) => r.reason)])).toEqual([
      [id, 'accepted', [`AC1: ${NO_REASON}`]],
    ])
  })

  it('repairs a malformed verdict once, in the same conversation with the same nonce', async () => {
    const id = await addHello()
    llm.enqueue(...attempt('hello world'), verdict('YES', YES_REASON, 'prose'), verdict('YES', YES_REASON))
    const result = await build()
    expect(result.code, result.stderr + result.stdout.slice(-2000)).toBe(0)
    const events = ndjson<Event>(result.stdout)

    const requests = chats()
    expect(requests.map((r) => r.seal?.ref ?? '-')).toEqual(['-', '-', 'AC1', 'AC1'])
    const [ask, repair] = [requests[2]!, requests[3]!]
    expect(repair.seal!.nonce).toBe(ask.seal!.nonce)
    // The repair turn quotes the broken answer back and says what was wrong with it.
    expect(repair.body.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user'])
    expect(String(repair.body.messages[2]!.content)).toMatch(/^Here is my verdict for AC1:\n<<<VERDICT/)
    const repairPrompt = String(repair.body.messages[3]!.content)
    expect(repairPrompt).toContain('there is text outside the block')
    expect(repairPrompt).toContain(`<<<VERDICT:V1:AC1:NONCE=${ask.seal!.nonce}>>>`)

    expect(events.find((e) => e.type === 'verify.criterion' && e.verdict!.kind === 'LLM')).toMatchObject({
      nonce: ask.seal!.nonce,
      repaired: true,
      verdict: { ref: 'AC1', answer: 'YES', reason: YES_REASON },
    })
    expect(events.find((e) => e.type === 'verify.completed')).toMatchObject({ outcome: 'PASS' })
    expect(events.at(-1)).toMatchObject({ type: 'build.finished', status: 'complete', accepted: [id] })

    const rows = verdictRows().filter((r) => r.kind === 'LLM')
    expect(rows).toEqual([
      expect.objectContaining({ nonce: ask.seal!.nonce, answer: 'YES', reason: YES_REASON }),
    ])
    // Both calls are paid for.
    expect(rows[0]!.costUsd).toBeCloseTo(2 * JUDGE_COST, 10)
  })

  it('two malformed answers make the criterion NEEDS_HUMAN: the build pauses with the task done, and says so', async () => {
    const id = await addHello()
    llm.enqueue(
      ...attempt('hello world'),
      verdict('YES', YES_REASON, 'wrong-nonce'),
      verdict('YES', YES_REASON, 'two-blocks'),
    )
    const result = await build()
    expect(result.code, result.stderr + result.stdout.slice(-2000)).toBe(3)
    const events = ndjson<Event>(result.stdout)

    // Exactly one repair: no third verification request, and the fallback was never used.
    const requests = chats()
    expect(requests.map((r) => r.seal?.ref ?? '-')).toEqual(['-', '-', 'AC1', 'AC1'])
    const nonce = requests[2]!.seal!.nonce
    expect(requests[3]!.seal!.nonce).toBe(nonce)
    expect(String(requests[3]!.body.messages[3]!.content)).toContain(
      `the block is not sealed with this verification's nonce ${nonce}`,
    )

    expect(events.find((e) => e.type === 'verify.completed')).toMatchObject({ outcome: 'NEEDS_HUMAN', nonce })
    expect(events.some((e) => e.type === 'build.rejected' || e.type === 'build.retry')).toBe(false)
    expect(events.at(-1)).toMatchObject({ type: 'build.finished', status: 'paused', accepted: [] })

    const rows = verdictRows().filter((r) => r.kind === 'LLM')
    expect(rows).toEqual([
      expect.objectContaining({ taskId: id, nonce, ref: 'AC1', kind: 'LLM', answer: 'NEEDS_HUMAN' }),
    ])
    expect(rows[0]!.reason).toContain('could not be parsed, even after one repair request')
    expect(rows[0]!.reason).toContain('more than one verdict block')
    expect(rows[0]!.costUsd).toBeCloseTo(2 * JUDGE_COST, 10)

    // The task waits, done, for a person; a needs-human notification tells them how to decide.
    const state = await queryState({ projectDir: project.path })
    expect(state.tasks.map((t) => [t.id, t.status])).toEqual([[id, 'done']])
    const note = readdirSync(join(project.path, '.ralph/notifications')).find((n) =>
      n.startsWith('needs-human-'),
    )
    expect(note).toBeDefined()
    const text = readFileSync(join(project.path, '.ralph/notifications', note!), 'utf8')
    expect(text).toContain(`ralph task accept ${id}`)
    expect(text).toContain('more than one verdict block')

    // The person decides as the notification says, and the queue is done.
    const accepted = await runCli(['task', 'accept', id, '--project', project.path, '--json'], { env })
    expect(accepted.code, accepted.stderr).toBe(0)
    expect((await queryState({ projectDir: project.path })).tasks).toEqual([])
    const log = await queueLog({ projectDir: project.path, all: true })
    expect(log.kind === 'tasks' && log.tasks.map((t) => [t.id, t.status])).toEqual([[id, 'accepted']])
  })
})
