// The fast model for side jobs, end to end through the built CLI: `ralph run` and `ralph build` in child processes,
// the main model on one fake server and the fast model on a second, real HTTP, real SQLite.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { addTask, setSpec } from '../../../src/main/queue'
import { openDatabase } from '../../../src/main/store/database'
import type { LoopEvent, TaskReceipt } from '../../../src/shared/loopEvents'
import {
  startFakeLlmServer,
  verdictSealOf,
  type FakeLlmServer,
  type ScriptedUsage,
} from '../../fixtures/fakeLlmServer'
import { runCli } from '../../helpers/cli'
import { makeTempDir } from '../../helpers/tempDir'
import { ndjson } from '../build/buildCliFixture'
import { parsed, say, tools, withUsage } from '../loop/harness'
import { memoryLogger } from '../../../src/main/workspace/logFile'

/** The queue's changes in these tests: failures they survive are kept in memory. */
const options = { logger: memoryLogger() }

/** USD per 1M tokens, set with `ralph config set price`, so each model's spend is known. */
const MAIN_RATES = { input: 3, output: 15 }
const FAST_RATES = { input: 0.5, output: 2 }
const cost = (u: ScriptedUsage, r: { input: number; output: number }) =>
  (u.prompt_tokens * r.input + u.completion_tokens * r.output) / 1_000_000

interface UsageRow {
  purpose: string
  provider: string
  model: string
  usd: number
}

describe('a fast model for side jobs (the CLI, as a child process)', { timeout: 180_000 }, () => {
  let main: FakeLlmServer
  let fast: FakeLlmServer
  let project: ReturnType<typeof makeTempDir>
  let home: ReturnType<typeof makeTempDir>
  let env: NodeJS.ProcessEnv
  beforeAll(async () => {
    main = await startFakeLlmServer()
    fast = await startFakeLlmServer()
  })
  afterAll(async () => {
    await main.close()
    await fast.close()
  })
  beforeEach(async () => {
    for (const s of [main, fast]) {
      s.requests.length = 0
      // A request beyond the script gets a reply no step accepts, and the counts below catch it.
      s.fallback = say('Nothing more.')
    }
    project = makeTempDir('ralph-project-')
    home = makeTempDir('ralph-home-')
    env = {
      RALPH_HOME: home.path,
      RALPH_PROVIDER: 'openai-compatible',
      RALPH_MODEL: 'main-model',
      RALPH_BASE_URL: main.baseUrl,
      RALPH_API_KEY: '',
    }
    for (const args of [
      ['config', 'set', 'fastModel', 'fast-model'],
      ['config', 'set', 'fastBaseUrl', fast.baseUrl],
      ['config', 'set', 'price', 'main-model', String(MAIN_RATES.input), String(MAIN_RATES.output)],
      ['config', 'set', 'price', 'fast-model', String(FAST_RATES.input), String(FAST_RATES.output)],
    ]) {
      const r = await runCli(args, { env })
      expect(r.stderr).toBe('')
      expect(r.code).toBe(0)
    }
  })
  afterEach(() => {
    project.cleanup()
    home.cleanup()
  })

  const chats = (s: FakeLlmServer) => s.requests.filter((r) => r.path === '/v1/chat/completions')
  const usageRows = (): UsageRow[] => {
    const db = openDatabase(join(home.path, 'ralph.db'))
    try {
      return db
        .prepare('SELECT purpose, provider, model, cost_usd AS usd FROM llm_usage ORDER BY id')
        .all() as UsageRow[]
    } finally {
      db.close()
    }
  }

  it('config get shows it; ralph run sends the parse and the checkpoint to it, the iterations to the main model', async () => {
    const shown = await runCli(['config', 'get', 'fastModel'], { env })
    expect(shown.stdout.trim()).toBe('openai-compatible:fast-model')

    const usage = {
      parse: { prompt_tokens: 300, completion_tokens: 50 },
      write: { prompt_tokens: 900, completion_tokens: 60 },
      // 13,200 of the main model's 16,384-token window: past the 80% budget, with room for a checkpoint.
      read: { prompt_tokens: 13_200, completion_tokens: 30 },
      checkpoint: { prompt_tokens: 13_300, completion_tokens: 80 },
      done: { prompt_tokens: 1_000, completion_tokens: 70 },
    } satisfies Record<string, ScriptedUsage>
    writeFileSync(join(project.path, 'a.txt'), 'alpha\n')
    fast.enqueue(
      withUsage(parsed({ type: 'bugfix', title: 'Write b.txt' }), usage.parse),
      withUsage(say('**Done:** wrote b.txt.\n**Next:** finish.'), usage.checkpoint),
    )
    main.enqueue(
      withUsage(tools(['write_file', { path: 'b.txt', content: 'b' }]), usage.write),
      withUsage(tools(['read_file', { path: 'a.txt' }]), usage.read),
      withUsage(tools(['mark_complete', { summary: 'Wrote b.txt and read a.txt.' }]), usage.done),
    )
    const result = await runCli(['run', 'write b.txt', '--json', '--project', project.path], { env })
    expect(result.stderr).toBe('')
    expect(result.code).toBe(0)

    // The fast server saw exactly the parse (no tools, JSON asked) and the checkpoint request.
    const fastChats = chats(fast)
    expect(fastChats).toHaveLength(2)
    expect(fastChats.map((r) => (r.body as { model: string }).model)).toEqual(['fast-model', 'fast-model'])
    expect(JSON.stringify(fastChats[0]!.body)).toContain('write b.txt')
    expect((fastChats[0]!.body as { tools?: unknown }).tools).toBeUndefined()
    const checkpointAsk = (fastChats[1]!.body as { messages: { content: unknown }[] }).messages.at(-1)!
    expect(JSON.stringify(checkpointAsk.content)).toContain('checkpoint')
    // The main server saw the three iteration steps, all with tools.
    const mainChats = chats(main)
    expect(mainChats).toHaveLength(3)
    for (const r of mainChats) {
      expect((r.body as { model: string }).model).toBe('main-model')
      expect((r.body as { tools?: unknown[] }).tools?.length).toBeGreaterThan(0)
    }

    // llm_usage: each row under the model that answered it, at that model's price.
    const rows = usageRows()
    expect(rows.map((r) => [r.purpose, r.model])).toEqual([
      ['parse', 'fast-model'],
      ['iteration', 'main-model'],
      ['iteration', 'main-model'],
      ['checkpoint', 'fast-model'],
      ['iteration', 'main-model'],
    ])
    expect(rows[3]!.usd).toBeCloseTo(cost(usage.checkpoint, FAST_RATES), 9)
    expect(rows[1]!.usd).toBeCloseTo(cost(usage.write, MAIN_RATES), 9)

    // The receipt lists both models with their spend, and the total is their sum.
    const events = ndjson<LoopEvent>(result.stdout)
    const completed = events.at(-1) as Extract<LoopEvent, { type: 'task.completed' }>
    expect(completed.type).toBe('task.completed')
    const receipt = completed.receipt as TaskReceipt
    const fastSpend = cost(usage.parse, FAST_RATES) + cost(usage.checkpoint, FAST_RATES)
    const mainSpend =
      cost(usage.write, MAIN_RATES) + cost(usage.read, MAIN_RATES) + cost(usage.done, MAIN_RATES)
    expect(receipt.models).toEqual([
      expect.objectContaining({ provider: 'openai-compatible', model: 'fast-model', calls: 2 }),
      expect.objectContaining({ provider: 'openai-compatible', model: 'main-model', calls: 3 }),
    ])
    expect(receipt.models![0]!.costUsd).toBeCloseTo(fastSpend, 8)
    expect(receipt.models![1]!.costUsd).toBeCloseTo(mainSpend, 8)
    expect(receipt.costUsd).toBeCloseTo(fastSpend + mainSpend, 8)
    expect(receipt.models!.every((m) => m.costSource === 'catalog')).toBe(true)
  })

  it('the text receipt line gives the spend per model', async () => {
    fast.enqueue(parsed({ type: 'bugfix', title: 'Write b.txt' }))
    main.enqueue(
      tools(['write_file', { path: 'b.txt', content: 'b' }], ['mark_complete', { summary: 'Wrote b.txt.' }]),
    )
    const result = await runCli(['run', 'write b.txt', '--project', project.path], { env })
    expect(result.code).toBe(0)
    // The fake's default usage: 10 prompt and 5 completion tokens per call.
    const each = { prompt_tokens: 10, completion_tokens: 5 }
    expect(result.stdout).toContain(
      `by model: fast-model ~$${cost(each, FAST_RATES).toFixed(4)} (1 call), main-model ~$${cost(each, MAIN_RATES).toFixed(4)} (1 call)`,
    )
  })

  it("ralph build asks the fast model for the LLM verdicts, and the task's parse; the main model does the work", async () => {
    writeFileSync(join(project.path, 'spec.md'), '# Hello\n')
    await setSpec({ projectDir: project.path, spec: 'spec.md', options })
    await addTask({
      projectDir: project.path,
      name: 'Write hello.txt',
      notes: 'Greet the world in hello.txt.',
      accept: ['LLM: hello.txt greets the world by name'],
      options,
    })
    fast.enqueue(parsed({ type: 'fresh', title: 'Write hello.txt' }), {
      kind: 'verdict',
      answer: 'YES',
      reason: "hello.txt reads 'hello world'",
      usage: { prompt_tokens: 1200, completion_tokens: 40 },
    })
    main.enqueue(
      tools(
        ['write_file', { path: 'hello.txt', content: 'hello world\n' }],
        ['mark_complete', { summary: 'Wrote hello.txt as asked.' }],
      ),
    )
    const result = await runCli(['build', '--json', '--project', project.path], { env })
    expect(result.code).toBe(0)
    const events = ndjson<{ type: string; outcome?: string }>(result.stdout)
    expect(events.find((e) => e.type === 'build.accepted')).toBeTruthy()

    const fastChats = chats(fast)
    expect(fastChats).toHaveLength(2)
    expect(verdictSealOf(fastChats[1]!.body)).not.toBeNull()
    // No verification request reached the main model.
    expect(chats(main).every((r) => verdictSealOf(r.body) === null)).toBe(true)
    expect(chats(main)).toHaveLength(1)
    const rows = usageRows()
    expect(rows.map((r) => [r.purpose, r.model])).toEqual([
      ['parse', 'fast-model'],
      ['iteration', 'main-model'],
      ['verify', 'fast-model'],
    ])
    expect(rows[2]!.usd).toBeCloseTo(cost({ prompt_tokens: 1200, completion_tokens: 40 }, FAST_RATES), 9)
  })

  it('a prefix that is no provider stays part of the model name; an empty model after PROVIDER: is refused with what to do', async () => {
    const set = await runCli(['config', 'set', 'fastModel', 'nosuch:model'], { env })
    // "nosuch" is no provider, so the whole text is a model name on the main provider: accepted as such.
    expect(set.code).toBe(0)
    const bad = await runCli(['run', 'hi', '--project', project.path], {
      env: { ...env, RALPH_FAST_MODEL: 'openai-compatible:' },
    })
    expect(bad.code).not.toBe(0)
    expect(bad.stderr).toContain('RALPH_FAST_MODEL')
    expect(bad.stderr).toContain('PROVIDER:MODEL')
    const shown = await runCli(['config', 'get', 'fastModel'], {
      env: { ...env, RALPH_FAST_MODEL: 'openai-compatible:' },
    })
    expect(shown.code).not.toBe(0)
    expect(shown.stderr).toContain('RALPH_FAST_MODEL')
    expect(chats(main)).toHaveLength(0)
    expect(chats(fast)).toHaveLength(0)
  })

  it('ralph config test calls the fast model too, and fails when it does not answer', async () => {
    const ok = await runCli(['config', 'test'], { env })
    expect(ok.code).toBe(0)
    expect(ok.stdout).toContain('Fast model: Connected to fast-model')
    expect(chats(main)).toHaveLength(1)
    expect(chats(fast)).toHaveLength(1)

    fast.enqueue({
      kind: 'error',
      status: 404,
      body: { error: { message: 'The model fast-model does not exist.' } },
    })
    const bad = await runCli(['config', 'test'], { env })
    expect(bad.code).toBe(5)
    expect(bad.stderr).toContain('Fast model:')
  })
})
