import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { addTask, queryState, setSpec } from '../../../src/main/queue'
import { openDatabase } from '../../../src/main/store/database'
import { startFakeLlmServer, type FakeLlmServer } from '../../fixtures/fakeLlmServer'
import { runCli } from '../../helpers/cli'
import { makeTempDir } from '../../helpers/tempDir'
import { say } from '../loop/harness'
import { CHECK_SCRIPT, cliEnv, ndjson, writeAttempt } from './buildCliFixture'
import { memoryLogger } from '../../../src/main/workspace/logFile'

/** The queue's changes in these tests: failures they survive are kept in memory. */
const options = { logger: memoryLogger() }

type Event = { type: string; taskId?: string; status?: string; message?: string; accepted?: string[] }

// The built CLI as a child process, real git, SQLite and files, the fake model over HTTP.
describe('ralph build: an escalated task stays escalated', { timeout: 180_000 }, () => {
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
    llm.fallback = say('Nothing more.')
    project = makeTempDir('ralph-escalate-')
    home = makeTempDir('ralph-home-')
    env = cliEnv(home.path, llm.baseUrl)
    writeFileSync(join(project.path, 'check.cjs'), CHECK_SCRIPT)
    writeFileSync(join(project.path, 'spec.md'), '# One file\n')
    await setSpec({ projectDir: project.path, spec: 'spec.md', options })
  })
  afterEach(() => {
    project.cleanup()
    home.cleanup()
  })

  it('three failures roll back and escalate; the next build makes no model call and says why; --retry runs it again', async () => {
    const a = (
      await addTask({
        projectDir: project.path,
        name: 'Write a.txt',
        notes: 'Put exactly "alpha" in a.txt.',
        accept: ['DET: `node check.cjs a.txt alpha` exits 0'],
        options,
      })
    ).ids[0]!
    const planBefore = readFileSync(join(project.path, '.ralph/plan.jsonl'), 'utf8')
    llm.enqueue(
      ...writeAttempt('a.txt', 'one'),
      ...writeAttempt('a.txt', 'two'),
      ...writeAttempt('a.txt', 'three'),
    )
    const first = await runCli(['build', '--project', project.path], { env })
    expect(first.code, first.stdout.slice(-2000)).toBe(4)
    expect(first.stdout).toContain('Build escalated')
    // The rollback restores plan.jsonl byte for byte: the task is pending, no tombstone says it failed.
    expect(readFileSync(join(project.path, '.ralph/plan.jsonl'), 'utf8')).toBe(planBefore)
    expect((await queryState({ projectDir: project.path })).tombstones).toEqual([])

    // The escalation is in SQLite, with the rollback's safety snapshot.
    const db = openDatabase(join(home.path, 'ralph.db'))
    try {
      const rows = db
        .prepare(
          `SELECT task_id AS taskId, kind, failures, rolled_back_to AS rolledBackTo, safety_tag AS safetyTag,
             cleared_at AS clearedAt FROM queue_escalations`,
        )
        .all()
      expect(rows).toEqual([
        {
          taskId: a,
          kind: 'failures',
          failures: 3,
          rolledBackTo: 'task-1-pre',
          safetyTag: expect.stringMatching(/^safety-\d+/),
          clearedAt: null,
        },
      ])
    } finally {
      db.close()
    }

    // The next build does not start it: not one model call, and it says which task and what to do.
    llm.requests.length = 0
    llm.enqueue(...writeAttempt('a.txt', 'alpha'))
    const again = await runCli(['build', '--json', '--project', project.path], { env })
    expect(again.code, again.stderr + again.stdout).toBe(4)
    expect(llm.requests).toHaveLength(0)
    const events = ndjson<Event>(again.stdout)
    // (The restored plan.jsonl differs from its history's last commit, so the build records it first.)
    expect(events.map((e) => e.type)).toEqual([
      'build.plan-committed',
      'build.started',
      'build.skipped',
      'build.finished',
    ])
    const finished = events.at(-1)!
    expect(finished).toMatchObject({ status: 'escalated', accepted: [] })
    expect(finished.message).toContain(`${a} "Write a.txt" is escalated`)
    expect(finished.message).toContain(`ralph build --retry ${a}`)

    // --retry needs an escalated task of the queue: a usage error otherwise, nothing started.
    const bogus = await runCli(['build', '--retry', 'nonsense', '--project', project.path], { env })
    expect(bogus.code).toBe(2)
    expect(bogus.stderr).toContain('--retry needs the id of an escalated task')
    const missing = await runCli(['build', '--retry', 't-zzzz', '--project', project.path], { env })
    expect(missing.code).toBe(2)
    expect(missing.stderr).toContain('t-zzzz is not in the queue')
    expect(llm.requests).toHaveLength(0)

    // Retry: the escalation ends and the task runs again, this time to a PASS.
    const retried = await runCli(['build', '--retry', a, '--project', project.path], { env })
    expect(retried.code, retried.stdout.slice(-2000)).toBe(0)
    expect(retried.stdout).toContain(`↻ ${a}: its escalation ended`)
    expect(retried.stdout).toContain(`✓ ${a} accepted`)
    expect(readFileSync(join(project.path, 'a.txt'), 'utf8').trim()).toBe('alpha')
    const after = openDatabase(join(home.path, 'ralph.db'))
    try {
      expect(after.prepare('SELECT cleared_by AS by FROM queue_escalations').all()).toEqual([{ by: 'retry' }])
    } finally {
      after.close()
    }
    // A task that is not escalated has nothing to retry.
    const b = (await addTask({ projectDir: project.path, name: 'Write b.txt', options })).ids[0]!
    const notEscalated = await runCli(['build', '--retry', b, '--project', project.path], { env })
    expect(notEscalated.code).toBe(2)
    expect(notEscalated.stderr).toContain(`${b} is not escalated`)
  })
})
