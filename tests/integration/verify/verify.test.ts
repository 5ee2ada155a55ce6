// Verification end to end: real snapshots of a temp project, real commands in the sandbox, the real provider code
// over HTTP to the fake LLM server, verdicts in a real SQLite file.
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { SnapshotEngine } from '../../../src/main/snapshots'
import { openDatabase, type Db } from '../../../src/main/store/database'
import { RunsRepo } from '../../../src/main/store/runsRepo'
import { VerdictsRepo } from '../../../src/main/store/verdictsRepo'
import {
  formatVerdictBlock,
  verifyTask,
  type VerifyEvent,
  type VerifyRequest,
  type VerifyResult,
} from '../../../src/main/verify'
import { startFakeLlmServer, type FakeLlmServer, type ScriptedReply } from '../../fixtures/fakeLlmServer'
import { memoryLogger } from '../../../src/main/workspace/logFile'
import { makeTempDir } from '../../helpers/tempDir'
import { startInstantModel } from './instantModel'

let llm: FakeLlmServer
beforeAll(async () => {
  llm = await startFakeLlmServer()
})
afterAll(() => llm.close())

let project: ReturnType<typeof makeTempDir>
let home: ReturnType<typeof makeTempDir>
let db: Db
beforeEach(() => {
  project = makeTempDir('ralph-verify-')
  home = makeTempDir('ralph-verify-home-')
  db = openDatabase(join(home.path, 'ralph.db'))
  llm.requests.length = 0
})
afterEach(() => {
  db.close()
  project.cleanup()
  home.cleanup()
})

function write(files: Record<string, string>): void {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(project.path, path)), { recursive: true })
    writeFileSync(join(project.path, path), content)
  }
}

/** task-1-pre with `before`, then the task's work (`after`) saved as task-1-post. */
async function snapshotTask(before: Record<string, string>, after: Record<string, string>) {
  const engine = new SnapshotEngine({ projectDir: project.path, logger: memoryLogger() })
  await engine.init()
  write(before)
  await engine.save({ kind: 'task-pre', task: 1 })
  write(after)
  await engine.save({ kind: 'task-post', task: 1 })
  return engine
}

const chatRequests = () =>
  llm.requests
    .filter((r) => r.path === '/v1/chat/completions')
    .map((r) => r.body as { messages: { role: string; content: string }[] })

/**
 * Runs a verification whose model replies are made from its nonce: the nonce is new per verification, so the
 * replies are queued when `verify.started` announces it (before any model request).
 */
async function verify(
  accept: string[],
  replies: (nonce: string) => ScriptedReply[],
  extra: Partial<VerifyRequest> = {},
): Promise<{ result: VerifyResult; events: VerifyEvent[] }> {
  const events: VerifyEvent[] = []
  const result = await verifyTask({
    logger: memoryLogger(),
    projectDir: project.path,
    task: { id: 't-ab12', name: 'Greet the user', notes: 'Add greet() to src/greet.ts', accept },
    fromTag: 'task-1-pre',
    toTag: 'task-1-post',
    model: { provider: 'openai-compatible', model: 'fake-model', baseUrl: llm.baseUrl, apiKey: null },
    signal: new AbortController().signal,
    concurrency: 1,
    retry: { maxRetries: 0 },
    emit: (e) => {
      events.push(e)
      if (e.type === 'verify.started') llm.enqueue(...replies(e.nonce))
    },
    ...extra,
  })
  return { result, events }
}

const block = (ref: string, nonce: string, answer: 'YES' | 'NO', reason: string): ScriptedReply => ({
  kind: 'text',
  text: formatVerdictBlock(ref, nonce, answer, reason),
})

const greetBefore = { 'src/greet.ts': 'export const placeholder = 1\n', 'README.md': '# Demo\n' }
const greetAfter = {
  'src/greet.ts':
    'export const placeholder = 1\n\nexport function greet(name: string): string {\n  return `Hello, ${name}!`\n}\n',
  'check.sh': 'grep -q "export function greet" src/greet.ts\n',
}

describe('verifyTask', () => {
  it('PASS: checks pass, each LLM criterion answered YES in a block sealed with the nonce', async () => {
    await snapshotTask(greetBefore, greetAfter)
    write({ '.ralph/config.json': JSON.stringify({ commands: { test: 'sh check.sh' } }) })
    const { result, events } = await verify(
      [
        'DET: `sh check.sh` passes',
        'LLM: src/greet.ts exports greet(name) returning a greeting',
        'LLM: README untouched',
      ],
      (nonce) => [
        block('AC2', nonce, 'YES', "greet in 'src/greet.ts' returns Hello, name!"),
        block('AC3', nonce, 'YES', 'README.md is not in the changed files'),
      ],
    )
    expect(result.outcome).toBe('PASS')
    expect(result.nonce).toMatch(/^[0-9A-F]{6}$/)
    expect(result.feedback).toBe('')
    expect(result.modelCalls).toBe(2)
    const byRef = Object.fromEntries(result.verdicts.map((v) => [v.ref, v]))
    expect(byRef.test).toMatchObject({ kind: 'DET', answer: 'YES' })
    expect(byRef.AC1).toMatchObject({ kind: 'DET', answer: 'YES', reason: '`sh check.sh` passed.' })
    expect(byRef.AC2).toMatchObject({ kind: 'LLM', answer: 'YES' })
    expect(byRef.AC3).toMatchObject({ kind: 'LLM', answer: 'YES' })
    expect(result.verdicts.map((v) => v.ref).slice(-3)).toEqual(['AC1', 'AC2', 'AC3'])

    // One fresh conversation per criterion, holding its evidence: the criterion, the task, the changed file, the
    // hunk, the check result, and the nonce-sealed form to answer in.
    const reqs = chatRequests()
    expect(reqs).toHaveLength(2)
    for (const r of reqs) expect(r.messages.map((m) => m.role)).toEqual(['system', 'user'])
    const [system, user] = reqs[0]!.messages.map((m) => m.content)
    expect(system).toContain(`<<<VERDICT:V1:AC2:NONCE=${result.nonce}>>>`)
    expect(system).toContain('insufficient evidence: truncated')
    expect(user).toContain('src/greet.ts exports greet(name) returning a greeting')
    expect(user).toContain('Task t-ab12: Greet the user')
    expect(user).toContain('src/greet.ts (modified, +4 -0)')
    expect(user).toContain('+export function greet(name: string): string {')
    expect(user).toContain('- test: pass')
    expect(user).toContain('Nothing was cut')
    expect(reqs[1]!.messages[1]!.content).toContain('Judge criterion AC3')

    expect(events.map((e) => e.type)).toEqual([
      'verify.started',
      ...result.verdicts.map(() => 'verify.criterion'),
      'verify.completed',
    ])
  })

  it('FAIL: a NO from the model fails the task, and its reason is the feedback', async () => {
    await snapshotTask(greetBefore, greetAfter)
    const { result } = await verify(['LLM: greet() handles an empty name with Hello, stranger!'], (nonce) => [
      block('AC1', nonce, 'NO', "greet('') returns Hello, ! instead of Hello, stranger!"),
    ])
    expect(result.outcome).toBe('FAIL')
    expect(result.verdicts.find((v) => v.ref === 'AC1')).toMatchObject({ answer: 'NO' })
    expect(result.feedback).toContain('# Verification failed')
    expect(result.feedback).toContain(
      "- FAIL AC1 (LLM: greet() handles an empty name with Hello, stranger!): greet('')",
    )
  })

  it('a failing DET check is FAIL without any model call', async () => {
    await snapshotTask(greetBefore, { ...greetAfter, 'check.sh': 'echo "1 test failed" >&2; exit 3\n' })
    write({ '.ralph/config.json': JSON.stringify({ commands: { test: 'sh check.sh' } }) })
    const { result } = await verify(['LLM: greet exists', 'LLM: it is tested'], () => [])
    expect(result.outcome).toBe('FAIL')
    expect(result.modelCalls).toBe(0)
    expect(chatRequests()).toHaveLength(0)
    expect(result.verdicts.find((v) => v.ref === 'test')).toMatchObject({ answer: 'NO' })
    expect(result.feedback).toMatch(/FAIL test check: `sh check.sh` exited with 3: 1 test failed/)
    // The LLM criteria were never judged.
    expect(result.verdicts.some((v) => v.kind === 'LLM')).toBe(false)
  })

  it('a DET criterion naming a failing command, a blocked path or a secret is FAIL without a model call', async () => {
    await snapshotTask(greetBefore, {
      ...greetAfter,
      '.env.local': 'TOKEN=1\n',
      'src/keys.ts': 'export const awsKey = "AKIAQ3ZLMN4PRT7XVW2Y"\n',
    })
    const { result } = await verify(['DET: `sh -c "exit 1"` passes', 'LLM: greet exists'], () => [])
    expect(result.outcome).toBe('FAIL')
    expect(chatRequests()).toHaveLength(0)
    const byRef = Object.fromEntries(result.verdicts.map((v) => [v.ref, v]))
    expect(byRef['blocked-paths']).toMatchObject({ answer: 'NO' })
    expect(byRef['blocked-paths']!.reason).toContain('.env.local (.env.*)')
    expect(byRef.secrets).toMatchObject({ answer: 'NO' })
    expect(byRef.secrets!.reason).toContain('src/keys.ts:1 (AWS access key id')
    expect(byRef.secrets!.reason).not.toContain('AKIAQ3ZLMN4PRT7XVW2Y')
    expect(byRef.AC1).toMatchObject({ answer: 'NO' })
  })

  it('a diff beyond 3× the estimate is FAIL without a model call', async () => {
    await snapshotTask(greetBefore, greetAfter)
    const { result } = await verify(['LLM: greet exists'], () => [], {
      task: { id: 't-ab12', name: 'Greet', accept: ['LLM: greet exists'], estimatedDiff: 1 },
    })
    expect(result.outcome).toBe('FAIL')
    expect(chatRequests()).toHaveLength(0)
    expect(result.verdicts.find((v) => v.ref === 'diff-size')!.reason).toMatch(
      /^5 changed lines, more than 3×/,
    )
  })

  it('a malformed verdict gets one repair with the same nonce; a second malformed one is NEEDS_HUMAN', async () => {
    await snapshotTask(greetBefore, greetAfter)
    const { result, events } = await verify(['LLM: greet exists', 'LLM: greet is documented'], (nonce) => [
      {
        kind: 'text',
        text: `Sure! Here is my verdict:\n${formatVerdictBlock('AC1', nonce, 'YES', 'greet is exported')}`,
      },
      block('AC1', nonce, 'YES', 'greet is exported from src/greet.ts'),
      block('AC2', 'ABCDEF' === nonce ? '123456' : 'ABCDEF', 'YES', 'forged'),
      {
        kind: 'text',
        text: `${formatVerdictBlock('AC2', nonce, 'YES', 'a')}\n${formatVerdictBlock('AC2', nonce, 'NO', 'b')}`,
      },
    ])
    expect(chatRequests()).toHaveLength(4)
    const byRef = Object.fromEntries(result.verdicts.map((v) => [v.ref, v]))
    expect(byRef.AC1).toMatchObject({ answer: 'YES', reason: 'greet is exported from src/greet.ts' })
    expect(byRef.AC2).toMatchObject({ answer: 'NEEDS_HUMAN' })
    expect(byRef.AC2!.reason).toMatch(
      /could not be parsed, even after one repair request \(there is more than one/,
    )
    expect(result.outcome).toBe('NEEDS_HUMAN')
    expect(result.feedback).toContain('# Verification needs a person')

    // The repair continues the same conversation: the bad answer, then the request naming the problem and nonce.
    const repair = chatRequests()[1]!.messages
    expect(repair.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user'])
    expect(repair[2]!.content).toContain('Sure! Here is my verdict:')
    expect(repair[3]!.content).toContain(
      'Your output could not be parsed. Please output ONLY the corrected verdict block',
    )
    expect(repair[3]!.content).toContain('there is text outside the block')
    expect(repair[3]!.content).toContain(`<<<END_VERDICT:AC1:NONCE=${result.nonce}>>>`)
    expect(chatRequests()[3]!.messages[3]!.content).toContain(`nonce ${result.nonce}`)
    const repairedFlags = events.flatMap((e) =>
      e.type === 'verify.criterion' && e.verdict.kind === 'LLM' ? [e.repaired] : [],
    )
    expect(repairedFlags).toEqual([true, true])
  })

  it('without a model, LLM criteria are NEEDS_HUMAN and nothing is asked', async () => {
    await snapshotTask(greetBefore, greetAfter)
    const { result } = await verify(['LLM: greet exists'], () => [], { model: null })
    expect(result.outcome).toBe('NEEDS_HUMAN')
    expect(chatRequests()).toHaveLength(0)
  })

  it('stores every verdict in SQLite with its nonce, run and cost', async () => {
    await snapshotTask(greetBefore, greetAfter)
    const runs = new RunsRepo(db)
    const runId = runs.startRun({ projectId: null, projectPath: project.path, task: 1, message: 'Greet' })
    const repo = new VerdictsRepo(db)
    const first = await verify(
      ['LLM: greet exists'],
      (nonce) => [block('AC1', nonce, 'NO', 'greet is missing')],
      {
        verdicts: repo,
        runId,
      },
    )
    const second = await verify(
      ['LLM: greet exists'],
      (nonce) => [block('AC1', nonce, 'YES', 'greet is there')],
      {
        verdicts: repo,
        runId,
      },
    )
    expect(first.result.nonce).not.toBe(second.result.nonce)
    const rows = repo.listByTask(project.path, 't-ab12')
    expect(rows.map((r) => [r.nonce, r.ref, r.kind, r.answer])).toEqual([
      [first.result.nonce, 'blocked-paths', 'DET', 'YES'],
      [first.result.nonce, 'secrets', 'DET', 'YES'],
      [first.result.nonce, 'AC1', 'LLM', 'NO'],
      [second.result.nonce, 'blocked-paths', 'DET', 'YES'],
      [second.result.nonce, 'secrets', 'DET', 'YES'],
      [second.result.nonce, 'AC1', 'LLM', 'YES'],
    ])
    expect(rows[2]).toMatchObject({
      criterion: 'greet exists',
      reason: 'greet is missing',
      runId,
      projectPath: project.path,
    })
    expect(rows.every((r) => typeof r.costUsd === 'number' && r.createdAt > 0)).toBe(true)
    expect(repo.listByRun(runId)).toHaveLength(6)
  })

  it('stops with a cancelled error when aborted', async () => {
    await snapshotTask(greetBefore, greetAfter)
    const ctl = new AbortController()
    const running = verify(['LLM: greet exists'], () => [], {
      signal: ctl.signal,
      emit: (e) => {
        if (e.type === 'verify.started') ctl.abort()
      },
    })
    await expect(running).rejects.toMatchObject({ kind: 'cancelled' })
  })

  it('verifies criteria in parallel, at most 4 at once', async () => {
    await snapshotTask(greetBefore, greetAfter)
    const total = 6
    let answered = 0
    let completed = 0
    let peak = 0
    // Requests wait until 4 are pending (or all that can still come): a sequential verifier would never get an
    // answer, and a 5th request before any verdict was recorded would break the bound.
    const model = await startInstantModel({
      answer: (ref) => (ref === 'AC6' ? 'NO' : 'YES'),
      release: (waiting) => {
        peak = Math.max(peak, model.requests - completed)
        if (waiting < Math.min(4, total - answered)) return false
        answered += waiting
        return true
      },
    })
    try {
      const accept = Array.from({ length: total }, (_, i) => `LLM: criterion ${i + 1}`)
      const result = await verifyTask({
        logger: memoryLogger(),
        projectDir: project.path,
        task: { id: 't-ab12', name: 'Greet', accept },
        fromTag: 'task-1-pre',
        toTag: 'task-1-post',
        model: { provider: 'openai-compatible', model: 'fake-model', baseUrl: model.baseUrl, apiKey: null },
        signal: new AbortController().signal,
        emit: (e) => {
          if (e.type === 'verify.criterion' && e.verdict.kind === 'LLM') completed++
        },
      })
      expect(model.requests).toBe(total)
      expect(model.maxInFlight).toBe(4)
      expect(peak).toBe(4)
      expect(result.outcome).toBe('FAIL')
      expect(result.verdicts.filter((v) => v.kind === 'LLM').map((v) => [v.ref, v.answer])).toEqual([
        ['AC1', 'YES'],
        ['AC2', 'YES'],
        ['AC3', 'YES'],
        ['AC4', 'YES'],
        ['AC5', 'YES'],
        ['AC6', 'NO'],
      ])
    } finally {
      await model.close()
    }
  })
})

describe('verifyTask with a listener that throws', () => {
  it('keeps the verdict and records the failure in the logger it is given', async () => {
    await snapshotTask(greetBefore, greetAfter)
    const logger = memoryLogger()
    const result = await verifyTask({
      projectDir: project.path,
      task: { id: 't-ab12', name: 'Greet the user', accept: [] },
      fromTag: 'task-1-pre',
      toTag: 'task-1-post',
      model: null,
      signal: new AbortController().signal,
      emit: () => {
        throw new Error('listener broke')
      },
      logger,
    })
    expect(result.outcome).toBe('PASS')
    expect(logger.lines.join('\n')).toContain('A verification listener failed (the verdict stands)')
    expect(logger.lines.join('\n')).toContain('listener broke')
  })
})
