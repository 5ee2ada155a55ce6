import { spawn } from 'node:child_process'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { startFakeLlmServer, type FakeLlmServer } from '../../fixtures/fakeLlmServer'
import { RALPH_BIN, runCli } from '../../helpers/cli'
import { makeTempDir } from '../../helpers/tempDir'
import { eightFlavors, flavorPlan, flavors, flavorsFile, planThenBuildEvents } from './fixtures'
import { parsed, say, tools } from './harness'

// Each test starts CLI processes that run whole tasks: the budget holds on a loaded 2-core machine.
describe('ralph run (the CLI, as a child process)', { timeout: 120_000 }, () => {
  let llm: FakeLlmServer
  let project: ReturnType<typeof makeTempDir>
  let home: ReturnType<typeof makeTempDir>
  let env: NodeJS.ProcessEnv
  beforeAll(async () => {
    llm = await startFakeLlmServer()
  })
  afterAll(() => llm.close())
  beforeEach(() => {
    llm.requests.length = 0
    llm.fallback = say('Nothing more.')
    project = makeTempDir('ralph-project-')
    home = makeTempDir('ralph-home-')
    env = {
      RALPH_HOME: home.path,
      RALPH_PROVIDER: 'openai-compatible',
      RALPH_MODEL: 'fake-model',
      RALPH_BASE_URL: llm.baseUrl,
      RALPH_API_KEY: '',
    }
  })
  afterEach(() => {
    project.cleanup()
    home.cleanup()
  })

  it('streams the NDJSON events of a mutation task and exits 0', async () => {
    mkdirSync(join(project.path, 'src'))
    mkdirSync(join(project.path, '.ralph'))
    writeFileSync(join(project.path, 'src/flavors.ts'), eightFlavors)
    writeFileSync(join(project.path, '.ralph/plan.tsx'), flavorPlan(''))
    llm.enqueue(
      parsed({
        type: 'mutation',
        title: 'Two night flavors',
        requirements: [{ marker: 'ADD', description: '2 nighttime flavors', count: 2 }],
        scope: { preserve: ['the 8 existing flavors'], affectedFiles: ['src/flavors.ts'] },
      }),
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
    const result = await runCli(
      ['run', 'add 2 more drinks for nighttime', '--json', '--project', project.path],
      { env },
    )
    expect(result.stderr).toBe('')
    expect(result.code).toBe(0)
    const events = result.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; task: number; iteration?: number })
    expect(events.map((e) => e.type)).toEqual(planThenBuildEvents)
    expect(events.every((e) => e.task === 1)).toBe(true)
    expect(events.filter((e) => e.type === 'tool.called').every((e) => typeof e.iteration === 'number')).toBe(
      true,
    )
    expect(readFileSync(join(project.path, 'src/flavors.ts'), 'utf8')).toContain('Moonlit Calm')

    // The plan diff defaults to the task's pre-task snapshot and runs the scope gates against it.
    const diff = await runCli(['plan', 'diff', '--json', '--project', project.path], { env })
    expect(diff.code).toBe(0)
    const report = JSON.parse(diff.stdout) as { against: string; gates: { gate: string; severity: string }[] }
    expect(report.against).toBe('task-1-pre')
    expect(report.gates.filter((g) => g.severity === 'failure')).toEqual([])
    expect(report.gates.map((g) => g.gate)).toContain('scope-add')
  })

  it('exits 3 on needs-clarification and prints the question', async () => {
    llm.enqueue(parsed({ type: 'needs-clarification', clarification: 'Which page do you mean?' }))
    const result = await runCli(['run', 'change the page', '--project', project.path], { env })
    expect(result.code).toBe(3)
    expect(result.stdout).toContain('? Which page do you mean?')
    expect(result.stdout).toContain('Answer with: ralph run --answer "<your answer>"')
  })

  it('continues a waiting task only with --answer: a plain run is refused, --new starts another task (#26)', async () => {
    llm.enqueue(parsed({ type: 'needs-clarification', clarification: 'Which page do you mean?' }))
    const asked = await runCli(['run', 'change the page', '--project', project.path], { env })
    expect(asked.code).toBe(3)
    const requests = llm.requests.length

    const plain = await runCli(['run', 'the home page', '--project', project.path], { env })
    expect(plain.code).toBe(2)
    expect(plain.stderr).toContain('Task 1 waits for your answer to its question (“Which page do you mean?”)')
    expect(plain.stderr).toContain('ralph run --answer')
    expect(llm.requests.length).toBe(requests)

    llm.enqueue(parsed({ type: 'bugfix' }), tools(['mark_complete', { summary: 'Nothing needed changing.' }]))
    const answered = await runCli(['run', '--answer', 'the home page', '--project', project.path], { env })
    expect(JSON.stringify(llm.requests.slice(requests))).toContain(
      "The user's answer to the clarification question: the home page",
    )
    expect(answered.stdout).toMatch(/Task 1\b/)

    // Nothing waits now: --answer is refused.
    const late = await runCli(['run', '--answer', 'again', '--project', project.path], { env })
    expect(late.code).toBe(2)
    expect(late.stderr).toContain('No task waits for an answer')
  })

  it('--new starts a new task beside a waiting one', async () => {
    llm.enqueue(parsed({ type: 'needs-clarification', clarification: 'Which page?' }))
    expect((await runCli(['run', 'change the page', '--project', project.path], { env })).code).toBe(3)
    llm.enqueue(parsed({ type: 'needs-clarification', clarification: 'Which colour?' }))
    const fresh = await runCli(['run', '--new', 'paint it', '--project', project.path], { env })
    expect(fresh.code).toBe(3)
    expect(fresh.stdout).toMatch(/Task 2\b/)
  })

  it('exits 4 at max iterations, 5 on a provider 401, 5 without a provider, 2 on bad flags', async () => {
    llm.enqueue(parsed({ type: 'bugfix' }), say('hmm'))
    const max = await runCli(['run', 'fix', '--max-iterations', '1', '--project', project.path], { env })
    expect(max.code).toBe(4)
    expect(max.stdout).toContain('failed (max-iterations)')

    llm.enqueue(parsed({ type: 'bugfix' }), {
      kind: 'error',
      status: 401,
      body: { error: { message: 'bad key' } },
    })
    const denied = await runCli(['run', 'fix', '--project', project.path], { env })
    expect(denied.code).toBe(5)
    expect(denied.stdout).toContain('refused the API key (401)')

    const none = await runCli(['run', 'fix', '--project', project.path], {
      env: { ...env, RALPH_PROVIDER: '', RALPH_MODEL: '', RALPH_BASE_URL: '' },
    })
    expect(none.code).toBe(5)
    expect(none.stderr).toContain('No LLM provider is configured')

    expect((await runCli(['run', '--project', project.path], { env })).code).toBe(2)
    expect(
      (await runCli(['run', 'x', '--max-iterations', 'lots', '--project', project.path], { env })).code,
    ).toBe(2)
    expect((await runCli(['run', 'x', '--provider', 'acme', '--project', project.path], { env })).code).toBe(
      5,
    )
  })

  it('refuses a second loop on the same project, and exits 130 when interrupted', async () => {
    llm.enqueue(parsed({ type: 'bugfix' }), { kind: 'hang' })
    const first = spawn(
      process.execPath,
      [RALPH_BIN, 'run', 'slow task', '--project', project.path, '--json'],
      {
        env: { ...process.env, ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    )
    let out = ''
    first.stdout.on('data', (c: Buffer) => (out += c.toString()))
    await new Promise<void>((resolve) => {
      const timer = setInterval(() => {
        if (out.includes('iteration.started')) {
          clearInterval(timer)
          resolve()
        }
      }, 20)
    })
    const second = await runCli(['run', 'another task', '--project', project.path], { env })
    // Busy is a documented code: the task could not run (4).
    expect(second.code).toBe(4)
    expect(second.stderr).toContain('Another Ralph loop is already running on this project')

    first.kill('SIGINT')
    const code = await new Promise<number | null>((resolve) => first.on('close', resolve))
    expect(code).toBe(130)
    // Ctrl+C is a shutdown, not Stop: the task is interrupted and can be resumed.
    expect(out).toContain('"reason":"interrupted"')
    expect(readFileSync(join(project.path, '.ralph', 'status.txt'), 'utf8').trim()).toBe('interrupted')
  })

  it('stops the task cleanly when the reader of its output goes away (ralph run --json | head -1)', async () => {
    llm.enqueue(parsed({ type: 'bugfix' }), { kind: 'hang' })
    const child = spawn(
      process.execPath,
      [RALPH_BIN, 'run', 'slow task', '--project', project.path, '--json'],
      {
        env: { ...process.env, ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    )
    let err = ''
    child.stderr.on('data', (c: Buffer) => (err += c.toString()))
    // Like `head -1`: read the first line, then close the pipe.
    const first = await new Promise<string>((resolve) => {
      let out = ''
      child.stdout.on('data', (c: Buffer) => {
        out += c.toString()
        if (out.includes('\n')) resolve(out.split('\n')[0]!)
      })
    })
    child.stdout.destroy()
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve))
    expect(JSON.parse(first)).toMatchObject({ type: 'task.started' })
    expect(code).toBe(130)
    expect(err).not.toMatch(/EPIPE|Error:|at /)
    // The pre-task snapshot is intact, and the task is not left running.
    const list = await runCli(['snapshot', 'list', '--json', '--project', project.path], { env })
    expect(JSON.parse(list.stdout).items.map((s: { tag: string }) => s.tag)).toContain('task-1-pre')
    expect(readFileSync(join(project.path, '.ralph', 'status.txt'), 'utf8').trim()).not.toBe('running')
  })
})
