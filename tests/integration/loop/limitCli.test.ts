import { spawn, type ChildProcess } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { openDatabase } from '../../../src/main/store/database'
import { startFakeLlmServer, type FakeLlmServer } from '../../fixtures/fakeLlmServer'
import { RALPH_BIN, runCli } from '../../helpers/cli'
import { makeTempDir } from '../../helpers/tempDir'
import { parsed, say, tools } from './harness'

const twoHourLimit = {
  kind: 'error' as const,
  status: 429,
  headers: { 'retry-after': '7200' },
  body: { error: { message: 'Usage limit reached for this plan.' } },
}

/** Starts `ralph run` and collects its output; `until` resolves once the output contains the text. */
function startRun(args: string[], env: NodeJS.ProcessEnv) {
  const child: ChildProcess = spawn(process.execPath, [RALPH_BIN, 'run', ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const out = { stdout: '', stderr: '' }
  child.stdout!.on('data', (c: Buffer) => (out.stdout += c.toString()))
  child.stderr!.on('data', (c: Buffer) => (out.stderr += c.toString()))
  const closed = new Promise<number | null>((resolve) => child.on('close', resolve))
  const until = (text: string) =>
    new Promise<void>((resolve, reject) => {
      const timer = setInterval(() => {
        if (out.stdout.includes(text)) {
          clearInterval(timer)
          resolve()
        }
      }, 20)
      void closed.then(() => {
        clearInterval(timer)
        if (out.stdout.includes(text)) resolve()
        else reject(new Error(`ralph run ended without printing "${text}":\n${out.stdout}\n${out.stderr}`))
      })
    })
  return { child, out, closed, until }
}

// Each test starts CLI processes that run whole tasks: the budget holds on a loaded 2-core machine.
describe('ralph run and usage limits, ralph config set context (CLI)', { timeout: 120_000 }, () => {
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

  it('waits for a 2-hour limit with a limit.waiting event until interrupted: exit 130, nothing lost', async () => {
    writeFileSync(join(project.path, 'keep.txt'), 'original')
    llm.enqueue(
      parsed({ type: 'bugfix' }),
      tools(['write_file', { path: 'keep.txt', content: 'work done before the limit' }]),
      twoHourLimit,
    )
    const run = startRun(['change keep.txt', '--json', '--project', project.path], env)
    await run.until('"limit.waiting"')
    const waiting = run.out.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; resetAt?: string; task: number; iteration?: number })
      .find((e) => e.type === 'limit.waiting')!
    expect(waiting).toMatchObject({ task: 1, iteration: 1 })
    expect(Date.parse(waiting.resetAt!) - Date.now()).toBeGreaterThan(7_000_000)

    run.child.kill('SIGINT')
    expect(await run.closed).toBe(130)
    const failed = JSON.parse(run.out.stdout.trim().split('\n').at(-1)!) as {
      type: string
      reason: string
      receipt: { limitWaits: number; calls: number }
    }
    // Ctrl+C is a shutdown, not Stop: the task is interrupted, to be resumed (issue 37).
    expect(failed).toMatchObject({
      type: 'task.failed',
      reason: 'interrupted',
      receipt: { limitWaits: 1, calls: 2 },
    })
    expect(readFileSync(join(project.path, 'keep.txt'), 'utf8')).toBe('work done before the limit')
    expect(readFileSync(join(project.path, '.ralph/status.txt'), 'utf8').trim()).toBe('interrupted')
    const db = openDatabase(join(home.path, 'ralph.db'))
    try {
      expect(db.prepare('SELECT outcome FROM limit_waits').all()).toEqual([{ outcome: 'cancelled' }])
      const row = db.prepare('SELECT status, receipt_json FROM runs').get() as {
        status: string
        receipt_json: string
      }
      expect(row.status).toBe('interrupted')
      expect(JSON.parse(row.receipt_json)).toEqual(failed.receipt)
    } finally {
      db.close()
    }
    const list = await runCli(['snapshot', 'list', '--json', '--project', project.path], { env })
    expect(JSON.parse(list.stdout).items.map((s: { tag: string }) => s.tag)).toContain('task-1-pre')
  })

  it('shows a countdown line while waiting, and --no-wait fails at once with exit 5', async () => {
    llm.enqueue(parsed({ type: 'bugfix' }), twoHourLimit)
    const run = startRun(['do it', '--project', project.path], env)
    await run.until('waiting for the usage limit')
    expect(run.out.stdout).toMatch(/waiting for the usage limit: resets at .+ — (2 h 00|1 h 59) min left/)
    run.child.kill('SIGINT')
    expect(await run.closed).toBe(130)

    llm.enqueue(parsed({ type: 'bugfix' }), twoHourLimit)
    const noWait = await runCli(['run', 'do it', '--no-wait', '--project', project.path], { env })
    expect(noWait.code).toBe(5)
    expect(noWait.stdout).toContain('failed (usage-limit)')
    expect(noWait.stdout).toContain('--no-wait')
    expect(noWait.stdout).toContain('Usage limit reached for this plan.')
    expect(noWait.stdout).not.toContain('waiting for the usage limit')
    // The receipt: the parse call alone was answered; the refused request cost nothing.
    expect(noWait.stdout).toContain(
      'receipt: 10 in / 5 out tokens, 1 call, 1 iteration, 0 checkpoints, 0 limit waits',
    )
  })

  it('sets, shows and removes a context window', async () => {
    const set = await runCli(['config', 'set', 'context', 'fake-model', '8k'], { env })
    expect(set.code).toBe(0)
    expect(set.stdout).toContain('8000 tokens')
    const get = await runCli(['config', 'get', 'context', 'fake-model', '--json'], { env })
    expect(JSON.parse(get.stdout)).toMatchObject({ tokens: 8000, source: 'override', key: 'fake-model' })
    const table = await runCli(['config', 'get', 'context'], { env })
    expect(table.stdout).toMatch(/fake-model\s+8000\s+yours/)
    expect(table.stdout).toMatch(/claude-\s+200000\s+built-in/)

    const bad = await runCli(['config', 'set', 'context', 'fake-model', 'lots'], { env })
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('Give the window in tokens')

    expect((await runCli(['config', 'unset', 'context', 'fake-model'], { env })).code).toBe(0)
    const after = await runCli(['config', 'get', 'context', 'fake-model', '--json'], { env })
    expect(JSON.parse(after.stdout)).toMatchObject({ tokens: 16384, source: 'fallback' })
  })
})
