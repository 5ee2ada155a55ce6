import { spawn } from 'node:child_process'
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { addTask, queryState, queueLog, setSpec } from '../../../src/main/queue'
import { openDatabase } from '../../../src/main/store/database'
import { startFakeLlmServer, type FakeLlmServer } from '../../fixtures/fakeLlmServer'
import { RALPH_BIN, runCli } from '../../helpers/cli'
import { makeTempDir } from '../../helpers/tempDir'
import { parsed, say } from '../loop/harness'
import { CHECK_SCRIPT, cliEnv, ndjson, writeAttempt } from './buildCliFixture'
import { memoryLogger } from '../../../src/main/workspace/logFile'

/** The queue's changes in these tests: failures they survive are kept in memory. */
const options = { logger: memoryLogger() }

type Event = { type: string; taskId?: string; outcome?: string; status?: string; task?: number }

// Each test spawns the built CLI, which runs whole tasks and their verification: budgets for a loaded 2-core box.
describe('ralph build (the CLI, as a child process)', { timeout: 180_000 }, () => {
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
    project = makeTempDir('ralph-build-')
    home = makeTempDir('ralph-home-')
    env = cliEnv(home.path, llm.baseUrl)
    writeFileSync(join(project.path, 'check.cjs'), CHECK_SCRIPT)
    writeFileSync(join(project.path, 'spec.md'), '# Three files\n')
    await setSpec({ projectDir: project.path, spec: 'spec.md', options })
  })
  afterEach(() => {
    project.cleanup()
    home.cleanup()
  })

  const add = async (name: string, file: string, want: string, deps: string[] = []) =>
    (
      await addTask({
        projectDir: project.path,
        name,
        notes: `Put exactly "${want}" in ${file}.`,
        accept: [`DET: \`node check.cjs ${file} ${want}\` exits 0`],
        deps,
        options,
      })
    ).ids[0]!

  it('builds three dependent tasks in order: one FAIL is rejected and retried with its reasons, then PASS', async () => {
    const a = await add('Write a.txt', 'a.txt', 'alpha')
    const b = await add('Write b.txt', 'b.txt', 'beta', [a])
    const c = await add('Write c.txt', 'c.txt', 'gamma', [b])
    llm.enqueue(
      ...writeAttempt('a.txt', 'alpha'),
      ...writeAttempt('b.txt', 'bet'), // wrong: VERIFY fails on AC1 without any model call
      ...writeAttempt('b.txt', 'beta'),
      ...writeAttempt('c.txt', 'gamma'),
    )
    const result = await runCli(['build', '--json', '--project', project.path], { env })
    expect(result.code, result.stderr + result.stdout.slice(-2000)).toBe(0)
    const events = ndjson<Event>(result.stdout)
    writeFileSync(join(home.path, 'transcript.ndjson'), result.stdout)

    expect(events[0]).toMatchObject({ type: 'build.started', mode: 'hybrid', order: [a, b, c] })
    const story = events
      .filter((e) =>
        ['build.attempt', 'verify.completed', 'build.accepted', 'build.rejected'].includes(e.type),
      )
      .map((e) => `${e.type} ${e.taskId}${e.outcome ? ` ${e.outcome}` : ''}`)
    expect(story).toEqual([
      `build.attempt ${a}`,
      `verify.completed ${a} PASS`,
      `build.accepted ${a}`,
      `build.attempt ${b}`,
      `verify.completed ${b} FAIL`,
      `build.rejected ${b}`,
      `build.attempt ${b}`,
      `verify.completed ${b} PASS`,
      `build.accepted ${b}`,
      `build.attempt ${c}`,
      `verify.completed ${c} PASS`,
      `build.accepted ${c}`,
    ])
    expect(events.at(-1)).toMatchObject({ type: 'build.finished', status: 'complete', accepted: [a, b, c] })
    // Outside lanes every event says so (DESIGN.md §18): \`lane: null\`, the loop's and verification's too.
    expect(events.filter((e) => (e as { lane?: unknown }).lane !== null)).toEqual([])
    // Every lifecycle ran whole: four tasks, four post snapshots.
    expect(events.filter((e) => e.type === 'task.completed').map((e) => e.task)).toEqual([1, 2, 3, 4])

    for (const [file, want] of [
      ['a.txt', 'alpha'],
      ['b.txt', 'beta'],
      ['c.txt', 'gamma'],
    ] as const)
      expect(readFileSync(join(project.path, file), 'utf8').trim()).toBe(want)

    // The retry's model saw why the first attempt was rejected, and the queue task in task.md.
    const prompts = llm.requests.map((r) => JSON.stringify(r.body))
    const retryPrompt = prompts.find((p) => p.includes('was rejected') && p.includes('expected \\"beta\\"'))
    expect(retryPrompt).toBeDefined()
    expect(retryPrompt).toContain(`Queue task ${b}`)

    // The queue: all accepted and gone from the file; the history tells B's rejection apart.
    expect((await queryState({ projectDir: project.path })).tasks).toEqual([])
    const log = await queueLog({ projectDir: project.path, all: true })
    if (log.kind !== 'tasks') throw new Error('expected the task history')
    expect(log.tasks.map((t) => [t.id, t.status, t.rejections.length])).toEqual([
      [a, 'accepted', 0],
      [b, 'accepted', 1],
      [c, 'accepted', 0],
    ])

    // Every verdict is in SQLite with its nonce.
    const db = openDatabase(join(home.path, 'ralph.db'))
    try {
      const rows = db
        .prepare('SELECT task_id AS taskId, ref, answer, nonce FROM verdicts ORDER BY id')
        .all() as { taskId: string; ref: string; answer: string; nonce: string }[]
      const ac1 = rows.filter((r) => r.ref === 'AC1').map((r) => `${r.taskId} ${r.answer}`)
      expect(ac1).toEqual([`${a} YES`, `${b} NO`, `${b} YES`, `${c} YES`])
      expect(rows.every((r) => /^[0-9A-F]{6}$/.test(r.nonce))).toBe(true)
    } finally {
      db.close()
    }
    // The summary notification.
    const notes = readdirSync(join(project.path, '.ralph/notifications'))
    expect(notes.filter((n) => n.startsWith('complete-'))).toHaveLength(1)
  })

  it('rolls back and escalates on the third failure; plan.jsonl comes back, the history keeps every rejection', async () => {
    const a = await add('Write a.txt', 'a.txt', 'alpha')
    llm.enqueue(
      ...writeAttempt('a.txt', 'one'),
      ...writeAttempt('a.txt', 'two'),
      ...writeAttempt('a.txt', 'three'),
    )
    const planBefore = readFileSync(join(project.path, '.ralph/plan.jsonl'), 'utf8')
    const result = await runCli(['build', '--project', project.path], { env })
    expect(result.code, result.stdout.slice(-2000)).toBe(4)
    expect(result.stdout).toContain(`✗ ${a} rejected (failure 3)`)
    expect(result.stdout).toContain('⟲ Rolled back to task-1-pre')
    expect(result.stdout).toContain('Build escalated')

    // The project is as before the first attempt: no a.txt, the queue as it was.
    expect(existsSync(join(project.path, 'a.txt'))).toBe(false)
    expect(readFileSync(join(project.path, '.ralph/plan.jsonl'), 'utf8')).toBe(planBefore)
    const log = await queueLog({ projectDir: project.path, all: true })
    if (log.kind !== 'tasks') throw new Error('expected the task history')
    expect(log.tasks[0]!.rejections.map((r) => r.reason)).toEqual([
      expect.stringContaining('got "one"'),
      expect.stringContaining('got "two"'),
      expect.stringContaining('got "three"'),
    ])
    const escalation = readdirSync(join(project.path, '.ralph/notifications')).find((n) =>
      n.startsWith('escalation-'),
    )
    expect(escalation).toBeDefined()
    const text = readFileSync(join(project.path, '.ralph/notifications', escalation!), 'utf8')
    expect(text).toContain(`- Task: ${a}`)
    expect(text).toContain('failed 3 times')
    // The abandoned work can come back: the rollback took a safety snapshot.
    expect(result.stdout).toMatch(/safety snapshot safety-\d+/)
  })

  it('stops cleanly on Ctrl+C inside a task (exit 130), the task still pending; refuses usage errors', async () => {
    const a = await add('Write a.txt', 'a.txt', 'alpha')
    llm.enqueue(parsed({ type: 'fresh', title: 'Write a.txt' }), { kind: 'hang' })
    const child = spawn(process.execPath, [RALPH_BIN, 'build', '--json', '--project', project.path], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let out = ''
    child.stdout.on('data', (c: Buffer) => (out += c.toString()))
    await expect
      .poll(() => out.includes('"iteration.started"'), { timeout: 120_000, interval: 50 })
      .toBe(true)
    const code = new Promise<number | null>((resolve) => child.on('close', resolve))
    child.kill('SIGINT')
    expect(await code).toBe(130)
    const events = ndjson<Event>(out)
    expect(events.at(-1)).toMatchObject({ type: 'build.finished', status: 'stopped' })
    // Ctrl+C is a shutdown: the task inside is interrupted (resumable), not stopped by the user.
    expect(events.find((e) => e.type === 'task.failed')).toMatchObject({ reason: 'interrupted' })
    expect(events.at(-1)).toMatchObject({ message: expect.stringContaining('Interrupted inside a task') })
    const state = await queryState({ projectDir: project.path })
    expect(state.tasks.map((t) => [t.id, t.status])).toEqual([[a, 'pending']])

    expect((await runCli(['build', 'now', '--project', project.path], { env })).code).toBe(2)
    expect((await runCli(['build', '--mode', 'reckless', '--project', project.path], { env })).code).toBe(2)
    const none = await runCli(['build', '--project', project.path], {
      env: { ...env, RALPH_PROVIDER: '', RALPH_MODEL: '', RALPH_BASE_URL: '' },
    })
    expect(none.code).toBe(5)
  })

  // A terminal (script(1) gives the CLI a real one): interactive mode asks before accepting; Ctrl+C at the question
  // stops the build (readline would otherwise take the key and the question would wait for ever), the task done.
  it('stops on Ctrl+C at the interactive approval question (exit 130), the task done and waiting', async () => {
    const a = await add('Write a.txt', 'a.txt', 'alpha')
    llm.enqueue(...writeAttempt('a.txt', 'alpha'))
    const line = [process.execPath, RALPH_BIN, 'build', '--mode', 'interactive', '--project', project.path]
    const child = spawn('script', ['-qec', line.join(' '), '/dev/null'], {
      env: { ...process.env, ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    })
    let out = ''
    child.stdout.on('data', (c: Buffer) => (out += c.toString()))
    const code = new Promise<number | null>((resolve) => child.on('close', resolve))
    await expect
      .poll(() => out, { timeout: 120_000, interval: 50 })
      .toContain(`${a} passed verification. Accept it and go on? [Y/n]`)
    child.stdin.write('\x03')
    expect(await code, out.slice(-2000)).toBe(130)
    expect(out).toContain(`Build stopped: Interrupted while asking to accept ${a}`)
    expect(out).toContain(`ralph task accept ${a}`)
    const state = await queryState({ projectDir: project.path })
    expect(state.tasks.map((t) => [t.id, t.status])).toEqual([[a, 'done']])
  })
})
