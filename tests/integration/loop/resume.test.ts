import { spawn, type ChildProcess } from 'node:child_process'
import { appendFileSync, existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { SnapshotEngine } from '../../../src/main/snapshots'
import type { LoopEvent } from '../../../src/shared/loopEvents'
import { RALPH_BIN, runCli } from '../../helpers/cli'
import { eightFlavors, flavorPlan, flavors, flavorsFile } from './fixtures'
import { done, loopFixture, parsed, say, tools, type LoopHarness } from './harness'
import { memoryLogger } from '../../../src/main/workspace/logFile'

const taskChild = fileURLToPath(new URL('./taskChild.ts', import.meta.url))

/** Polls until `cond` holds: CI is a loaded box, so generous budgets and never a fixed sleep. */
async function waitFor(cond: () => boolean, what: string, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 25))
  }
}

let children: ChildProcess[] = []
afterEach(() => {
  for (const c of children) c.kill('SIGKILL')
  children = []
})

/** Starts `command` and SIGKILLs it once its output shows `until` and the model has had `calls` requests. */
async function killMidTask(
  h: LoopHarness,
  command: string[],
  env: NodeJS.ProcessEnv,
  calls: number,
  signal: NodeJS.Signals = 'SIGKILL',
): Promise<string> {
  const proc = spawn(process.execPath, command, { env, stdio: ['ignore', 'pipe', 'pipe'] })
  children.push(proc)
  let out = ''
  proc.stdout!.on('data', (b: Buffer) => (out += b.toString()))
  const closed = new Promise<void>((resolve) => proc.on('close', () => resolve()))
  await waitFor(
    () => out.includes('"iteration.started"') && h.chatRequests().length >= calls,
    'the task to be mid-iteration',
  )
  proc.kill(signal)
  await closed
  return out
}

const status = (h: LoopHarness) => readFileSync(join(h.dir, '.ralph/status.txt'), 'utf8').trim()
const tags = async (h: LoopHarness) =>
  (await new SnapshotEngine({ projectDir: h.dir, logger: memoryLogger() }).list()).items.map((s) => ({
    tag: s.tag,
    commit: s.commit,
  }))
const runRows = (h: LoopHarness) =>
  h.db.prepare('SELECT id, task, status, iterations, message FROM runs ORDER BY id').all() as {
    id: number
    task: number
    status: string
    iterations: number
    message: string
  }[]

describe('resuming an interrupted task (runTask resume)', { timeout: 120_000 }, () => {
  const t = loopFixture()

  it('continues the task killed mid-iteration: same number, pre snapshot and run row, next iteration, post snapshot', async () => {
    const { h, llm } = t
    h.write({ 'a.txt': 'one\n' })
    llm.enqueue(
      parsed({ type: 'bugfix', title: 'Fix the greeting', requirements: [] }),
      tools(['write_file', { path: 'a.txt', content: 'two\n' }]),
      { kind: 'hang' },
    )
    // The task runs in its own process (like `ralph run`), which dies with SIGKILL in iteration 1.
    await killMidTask(
      h,
      ['--import', 'tsx', taskChild, h.dir, join(h.home.path, 'ralph.db'), llm.baseUrl, 'fix the greeting'],
      process.env,
      3,
    )
    expect(status(h)).toBe('running')
    const [before] = runRows(h)
    const pre = (await tags(h)).find((s) => s.tag === 'task-1-pre')!
    expect(pre).toBeDefined()
    // What a checkpoint of iteration 1 would have left: the next iteration reads it.
    appendFileSync(join(h.dir, '.ralph/progress.md'), '# Progress of task 1\n\nCHECKPOINT: a.txt says two.\n')

    const requestsBefore = h.chatRequests().length
    llm.enqueue(done('The greeting says two.'))
    const result = await h.run('', { extra: { resume: true } })

    expect(result).toMatchObject({ status: 'complete', task: 1, iterations: 2 })
    expect(runRows(h)).toEqual([
      { id: before!.id, task: 1, status: 'complete', iterations: 2, message: 'fix the greeting' },
    ])
    const iterations = h.db
      .prepare('SELECT number FROM iterations WHERE run_id = ? ORDER BY number')
      .all(before!.id) as { number: number }[]
    expect(iterations.map((i) => i.number)).toEqual([1, 2])
    // No new pre snapshot, no new parse: the task goes on, from iteration 2.
    expect(h.events[0]).toMatchObject({ type: 'task.started', task: 1, continued: true })
    expect(h.types()).not.toContain('task.parsed')
    const started = h.events.filter((e) => e.type === 'iteration.started')
    expect(started.map((e) => (e as { iteration: number }).iteration)).toEqual([2])
    const after = await tags(h)
    expect(after.filter((s) => s.tag === 'task-1-pre')).toEqual([pre])
    expect(after.map((s) => s.tag)).toContain('task-1-post')
    expect(after.map((s) => s.tag).filter((tag) => tag.startsWith('task-2'))).toEqual([])
    expect(status(h)).toBe('complete')

    // The resumed iteration's context: task.md, progress.md and a note that the last iteration was cut short.
    const requests = h.chatRequests().slice(requestsBefore)
    expect(requests).toHaveLength(1)
    const prompt = JSON.stringify(requests[0]!.messages)
    expect(prompt).toContain('Fix the greeting')
    expect(prompt).toContain('CHECKPOINT: a.txt says two.')
    expect(prompt).toContain('iteration 1 of task 1 was running')
  })

  it('resumes a mutation cut short in PLAN: its parse and plan baseline hold, the plan flips to BUILD, gates pass', async () => {
    const { h, llm } = t
    h.write({ 'src/flavors.ts': eightFlavors, '.ralph/plan.tsx': flavorPlan('') })
    llm.enqueue(
      parsed({
        type: 'mutation',
        title: 'Two night flavors',
        requirements: [{ marker: 'ADD', description: '2 nighttime flavors', count: 2 }],
        scope: { preserve: ['the 8 existing flavors'], affectedFiles: ['src/flavors.ts'] },
      }),
      { kind: 'hang' },
    )
    await killMidTask(
      h,
      ['--import', 'tsx', taskChild, h.dir, join(h.home.path, 'ralph.db'), llm.baseUrl, 'add 2 night drinks'],
      process.env,
      2,
    )
    const requestsBefore = h.chatRequests().length
    llm.enqueue(
      tools([
        'write_file',
        {
          path: '.ralph/plan.tsx',
          content: flavorPlan(
            '{/* TASK-1 [ADD]: 2 nighttime flavors (Moonlit Calm, Deep Rest) */}\n          {/* EXISTING 8 flavors PRESERVED */}',
          ),
        },
      ]),
      say('Plan updated.'),
      tools(
        ['write_file', { path: 'src/flavors.ts', content: flavorsFile(flavors.added) }],
        ['mark_complete', { summary: 'Added Moonlit Calm and Deep Rest after the 8 flavors.' }],
      ),
    )
    const result = await h.run('', { extra: { resume: true } })
    expect(result).toMatchObject({ status: 'complete', task: 1, iterations: 3 })
    const iterations = h.events.filter((e) => e.type === 'iteration.started') as Extract<
      LoopEvent,
      { type: 'iteration.started' }
    >[]
    expect(iterations.map((e) => [e.iteration, e.phase])).toEqual([
      [2, 'plan'],
      [3, 'build'],
    ])
    expect(h.events.find((e) => e.type === 'phase.changed')).toMatchObject({ iteration: 3, to: 'build' })
    expect(
      h.events
        .filter((e) => e.type === 'gate.result')
        .every((e) => (e as { severity: string }).severity !== 'failure'),
    ).toBe(true)
    // The mutation's plan guidance came from the kept parse: the model was told which sections to mark.
    const first = JSON.stringify(h.chatRequests()[requestsBefore]!.messages)
    expect(first).toContain('Plan sections for task 1')
    expect(first).toContain('[ADD] 2 nighttime flavors (count: 2)')
    expect(readFileSync(join(h.dir, 'src/flavors.ts'), 'utf8')).toContain('Moonlit Calm')
  })

  it('is refused, changing nothing, when the last task was not interrupted', async () => {
    const { h, llm } = t
    h.write({ 'a.txt': 'one\n' })
    await expect(h.run('', { extra: { resume: true } })).rejects.toMatchObject({
      kind: 'not-found',
      message: expect.stringContaining('none has run yet'),
    })
    expect(existsSync(join(h.dir, '.ralph'))).toBe(false)

    llm.enqueue(
      parsed({ type: 'bugfix' }),
      tools(['write_file', { path: 'a.txt', content: 'two\n' }]),
      done(),
    )
    expect((await h.run('fix it')).status).toBe('complete')
    const rows = runRows(h)
    const snapshots = await tags(h)
    const requests = h.chatRequests().length
    await expect(h.run('', { extra: { resume: true } })).rejects.toMatchObject({
      kind: 'not-found',
      message:
        "Nothing to resume: the project's last task (task 1) was not interrupted — it ended as complete. " +
        'Send a new message (ralph run "<message>") to start a new task instead.',
    })
    expect(runRows(h)).toEqual(rows)
    expect(await tags(h)).toEqual(snapshots)
    expect(status(h)).toBe('complete')
    expect(h.chatRequests()).toHaveLength(requests)

    llm.enqueue(parsed({ type: 'needs-clarification', clarification: 'Which file?' }))
    expect((await h.run('change it')).status).toBe('needs-clarification')
    await expect(h.run('', { extra: { resume: true } })).rejects.toMatchObject({
      message: expect.stringContaining('it waits for your answer to its question'),
    })
    expect(status(h)).toBe('waiting')
  })
})

describe('ralph run --resume (the CLI, as child processes)', { timeout: 120_000 }, () => {
  const t = loopFixture()

  it('finishes the task of a `ralph run` killed with SIGKILL, as the same task; refuses when nothing is interrupted', async () => {
    const { h, llm } = t
    h.write({ 'a.txt': 'one\n' })
    const env = {
      ...process.env,
      RALPH_HOME: h.home.path,
      RALPH_PROVIDER: 'openai-compatible',
      RALPH_MODEL: 'fake-model',
      RALPH_BASE_URL: llm.baseUrl,
      RALPH_API_KEY: '',
    }
    llm.enqueue(
      parsed({ type: 'bugfix', title: 'Fix the greeting' }),
      tools(['write_file', { path: 'a.txt', content: 'two\n' }]),
      { kind: 'hang' },
    )
    const killed = await killMidTask(
      h,
      [RALPH_BIN, 'run', 'fix the greeting', '--project', h.dir, '--json'],
      env,
      3,
    )
    expect(killed).toContain('"task.parsed"')
    const pre = (await tags(h)).find((s) => s.tag === 'task-1-pre')!

    // A message with --resume is a usage error: the task keeps its own request.
    const both = await runCli(['run', 'something else', '--resume', '--project', h.dir], { env })
    expect(both.code).toBe(2)
    expect(both.stderr).toContain('--resume continues the interrupted task with its own request')

    llm.enqueue(done('The greeting says two.'))
    const resumed = await runCli(['run', '--resume', '--json', '--max-iterations', '5', '--project', h.dir], {
      env,
    })
    expect(resumed.stderr).toBe('')
    expect(resumed.code).toBe(0)
    const events = resumed.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as LoopEvent)
    expect(events[0]).toMatchObject({
      type: 'task.started',
      task: 1,
      continued: true,
      message: 'fix the greeting',
    })
    expect(events.every((e) => e.task === 1)).toBe(true)
    expect(events.find((e) => e.type === 'iteration.started')).toMatchObject({
      iteration: 2,
      maxIterations: 5,
    })
    expect(events.at(-1)).toMatchObject({ type: 'task.completed', task: 1, postTag: 'task-1-post' })
    expect(readFileSync(join(h.dir, 'a.txt'), 'utf8')).toBe('two\n')
    const after = await tags(h)
    expect(after.filter((s) => s.tag === 'task-1-pre')).toEqual([pre])
    expect(after.map((s) => s.tag)).toContain('task-1-post')
    expect(runRows(h).map((r) => [r.task, r.status])).toEqual([[1, 'complete']])

    // Human output says it resumes; a second resume has nothing to resume (a usage error, exit 2).
    const again = await runCli(['run', '--resume', '--project', h.dir], { env })
    expect(again.code).toBe(2)
    expect(again.stderr).toContain("Nothing to resume: the project's last task (task 1) was not interrupted")
    expect(status(h)).toBe('complete')
  })

  it('ends a task interrupted by SIGTERM (not stopped), and prints that it resumes, in words', async () => {
    const { h, llm } = t
    h.write({ 'a.txt': 'one\n' })
    const env = {
      ...process.env,
      RALPH_HOME: h.home.path,
      RALPH_PROVIDER: 'openai-compatible',
      RALPH_MODEL: 'fake-model',
      RALPH_BASE_URL: llm.baseUrl,
      RALPH_API_KEY: '',
    }
    llm.enqueue(parsed({ type: 'bugfix', title: 'Fix it' }), { kind: 'hang' })
    // SIGTERM (an OS shutdown, a service manager): an interruption, not the user's Stop — the task ends
    // interrupted by itself, resumable, with no crash recovery needed.
    const out = await killMidTask(
      h,
      [RALPH_BIN, 'run', 'fix it', '--project', h.dir, '--json'],
      env,
      2,
      'SIGTERM',
    )
    const failed = out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as LoopEvent)
      .find((e) => e.type === 'task.failed')
    expect(failed).toMatchObject({ reason: 'interrupted', iteration: 1 })
    expect((failed as { message: string }).message).toContain(
      'Ralph was shut down (SIGTERM) during iteration 1',
    )
    expect(status(h)).toBe('interrupted')
    expect(runRows(h).map((r) => [r.task, r.status])).toEqual([[1, 'interrupted']])
    llm.enqueue(tools(['write_file', { path: 'a.txt', content: 'two\n' }]), done('Fixed.'))
    const resumed = await runCli(['run', '--resume', '--project', h.dir], { env })
    expect(resumed.code).toBe(0)
    expect(resumed.stdout).toContain('▶ Task 1 resumes: fix it')
  })
})
