// The recorded cost of every call is its bill: the product's real provider code (createModel, the AI SDK's
// Anthropic and OpenAI Responses clients) over real HTTP to the wire-format fakes, which bill each request from the
// prompt as the services do (cache reads, 5-minute and 1-hour cache writes). Each call's cost record (toUsage,
// usageEntry, and in the task below the SQLite row) must be within 0.5% of the bill at the vendor's published
// rates; it is in fact exact.
import { join } from 'node:path'
import { generateText, stepCountIs, tool, type ModelMessage } from 'ai'
import { afterEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createModel, type ModelConfig } from '../../../src/main/llm/createModel'
import { toUsage } from '../../../src/main/llm/modelTurn'
import { callsCost, usageEntry } from '../../../src/main/llm/usage'
import { runTask } from '../../../src/main/loop/runTask'
import { askQuestion } from '../../../src/main/tasks/askQuestion'
import { openDatabase, type Db } from '../../../src/main/store/database'
import { RunsRepo } from '../../../src/main/store/runsRepo'
import type { LoopEvent } from '../../../src/shared/loopEvents'
import { formatReceipt } from '../../../src/shared/formatLoopEvent'
import { memoryLogger } from '../../../src/main/workspace/logFile'
import { startAnthropicServer } from '../../fixtures/wire/anthropicServer'
import { startResponsesServer } from '../../fixtures/wire/responsesServer'
import type { Bill, WireServer } from '../../fixtures/wire/shared'
import { claudeDirs, ofType, runClaude } from '../../fixtures/engines/claudeSession'
import { makeTempDir } from '../../helpers/tempDir'
import { parsed, tools } from '../loop/harness'

/** USD per 1M tokens, as the vendor publishes them. */
interface Rates {
  input: number
  output: number
  cacheRead: number
  cacheWrite: number
  cacheWrite1h: number
}

// The rates are written here from the vendors' price pages, not read through the product's catalog, so the test
// checks the product against the bill instead of against itself.
// anthropic.com/pricing: a cache read is 0.1× input, a 5-minute write 1.25×, a 1-hour write 2×.
const anthropic = (input: number, output: number): Rates => ({
  input,
  output,
  cacheRead: input * 0.1,
  cacheWrite: input * 1.25,
  cacheWrite1h: input * 2,
})
// openai.com/api/pricing: cached input at its own rate; OpenAI bills no cache write (a cached prefix is input).
const openai = (input: number, cachedInput: number, output: number): Rates => ({
  input,
  output,
  cacheRead: cachedInput,
  cacheWrite: input,
  cacheWrite1h: input,
})

interface Case {
  provider: Extract<ModelConfig['provider'], 'anthropic' | 'openai'>
  model: string
  rates: Rates
  /** Every token of a call whose prompt is over `above` tokens, at these rates. */
  longContext?: { above: number; rates: Rates }
}

const MODELS: Case[] = [
  // Sonnet 4.5 over 200K input tokens: input $6, output $22.50 (and the cache rates on $6).
  {
    provider: 'anthropic',
    model: 'claude-sonnet-4-5',
    rates: anthropic(3, 15),
    longContext: { above: 200_000, rates: anthropic(6, 22.5) },
  },
  { provider: 'anthropic', model: 'claude-sonnet-4-5-20250929', rates: anthropic(3, 15) },
  { provider: 'anthropic', model: 'claude-haiku-4-5', rates: anthropic(1, 5) },
  { provider: 'anthropic', model: 'claude-opus-4-5', rates: anthropic(5, 25) },
  { provider: 'anthropic', model: 'claude-opus-4-1', rates: anthropic(15, 75) },
  { provider: 'anthropic', model: 'claude-3-5-haiku-latest', rates: anthropic(0.8, 4) },
  { provider: 'openai', model: 'gpt-5', rates: openai(1.25, 0.125, 10) },
  { provider: 'openai', model: 'gpt-5-mini', rates: openai(0.25, 0.025, 2) },
  { provider: 'openai', model: 'gpt-5-nano', rates: openai(0.05, 0.005, 0.4) },
  { provider: 'openai', model: 'gpt-5.1', rates: openai(1.25, 0.125, 10) },
  { provider: 'openai', model: 'gpt-4.1', rates: openai(2, 0.5, 8) },
  { provider: 'openai', model: 'gpt-4.1-mini', rates: openai(0.4, 0.1, 1.6) },
  { provider: 'openai', model: 'gpt-4o', rates: openai(2.5, 1.25, 10) },
  { provider: 'openai', model: 'gpt-4o-mini', rates: openai(0.15, 0.075, 0.6) },
]

const promptOf = (b: Bill) => b.uncachedInput + b.cacheRead + b.cacheWrite

/** What the vendor charges for one answered request: each kind of token at its own rate. */
function billUsd(b: Bill, c: Case): number {
  const r = c.longContext && promptOf(b) > c.longContext.above ? c.longContext.rates : c.rates
  const oneHour = b.cacheWrite1h
  return (
    (b.uncachedInput * r.input +
      b.cacheRead * r.cacheRead +
      (b.cacheWrite - oneHour) * r.cacheWrite +
      oneHour * r.cacheWrite1h +
      b.output * r.output) /
    1_000_000
  )
}

const start = (c: Case, contextWindow?: number): Promise<WireServer & { baseUrl: string }> =>
  c.provider === 'anthropic'
    ? startAnthropicServer({ contextWindow })
    : startResponsesServer({ contextWindow })

/**
 * A three-step tool conversation. On Anthropic the system prompt is cached for one hour and the conversation's
 * tail for five minutes (the breakpoints a caller sets); OpenAI caches the stable prefix by itself.
 */
async function converse(c: Case, server: WireServer & { baseUrl: string }, system: string) {
  for (const path of ['a.ts', 'b.ts'])
    server.enqueue({ kind: 'tools', calls: [{ name: 'readFile', arguments: { path } }] })
  server.enqueue({ kind: 'text', text: 'Done.' })
  const hour = { anthropic: { cacheControl: { type: 'ephemeral', ttl: '1h' } } }
  const minutes = { anthropic: { cacheControl: { type: 'ephemeral' } } }
  const cached = c.provider === 'anthropic'
  return generateText({
    model: createModel({ provider: c.provider, model: c.model, baseUrl: server.baseUrl, apiKey: 'test-key' }),
    allowSystemInMessages: true,
    messages: [
      { role: 'system', content: system, ...(cached ? { providerOptions: hour } : {}) },
      { role: 'user', content: 'Read a.ts and b.ts.' },
    ],
    tools: {
      readFile: tool({
        description: 'Reads a file',
        inputSchema: z.object({ path: z.string() }),
        execute: async ({ path }) => `contents of ${path}: ` + 'line of code\n'.repeat(400),
      }),
    },
    stopWhen: stepCountIs(5),
    prepareStep: ({ messages }) =>
      cached
        ? {
            messages: messages.map(
              (m, i): ModelMessage => (i === messages.length - 1 ? { ...m, providerOptions: minutes } : m),
            ),
          }
        : {},
  })
}

/** Each step's cost record against its bill: the same tokens, and the cost within 0.5% (exact, in fact). */
function expectRecordsMatch(c: Case, steps: { usage: Parameters<typeof toUsage>[0] }[], bills: Bill[]) {
  expect(steps).toHaveLength(bills.length)
  steps.forEach((step, i) => {
    const entry = usageEntry({
      purpose: 'iteration',
      model: { provider: c.provider, model: c.model },
      usage: toUsage(step.usage),
      durationMs: 1,
      taskNumber: 1,
      iteration: 1,
    })
    const bill = bills[i]!
    expect(entry).toMatchObject({
      inputTokens: promptOf(bill),
      cacheReadTokens: bill.cacheRead,
      cacheWriteTokens: bill.cacheWrite,
      outputTokens: bill.output,
      costKnown: true,
      costSource: 'catalog',
    })
    expect(entry.cacheWrite1hTokens ?? 0).toBe(bill.cacheWrite1h)
    const usd = billUsd(bill, c)
    expect(Math.abs(entry.costUsd - usd)).toBeLessThanOrEqual(usd * 0.005)
    expect(entry.costUsd).toBeCloseTo(usd, 9)
  })
}

describe.each(MODELS)(
  'every call of $model through its wire format costs its bill',
  { timeout: 60_000 },
  (c) => {
    it('cache reads, 5-minute and 1-hour writes (Anthropic), cached input (OpenAI)', async () => {
      const server = await start(c)
      try {
        const result = await converse(c, server, 'Project rules and tool guide. '.repeat(500))
        const bills = server.bills()
        expect(bills).toHaveLength(3)
        // The conversation exercised what it is here for: cache reads, and on Anthropic writes of both lifetimes.
        expect(bills.some((b) => b.cacheRead > 0)).toBe(true)
        if (c.provider === 'anthropic') {
          expect(bills.some((b) => b.cacheWrite1h > 0)).toBe(true)
          expect(bills.some((b) => b.cacheWrite - b.cacheWrite1h > 0)).toBe(true)
        }
        expectRecordsMatch(c, result.steps, bills)
      } finally {
        await server.close()
      }
    })
  },
)

describe('a prompt over the long-context threshold', { timeout: 120_000 }, () => {
  it('is billed at the long-context rates, every token of the call (Claude Sonnet 4.5 over 200K)', async () => {
    const c = MODELS.find((m) => m.model === 'claude-sonnet-4-5')!
    const server = await start(c, 1_000_000)
    try {
      // ~210K tokens of system prompt (the fakes count 4 characters a token).
      const result = await converse(c, server, 'Project rules and tool guide. '.repeat(28_000))
      const bills = server.bills()
      expect(bills.every((b) => promptOf(b) > 200_000)).toBe(true)
      expect(bills.some((b) => b.cacheWrite1h > 200_000 - 10_000)).toBe(true)
      expectRecordsMatch(c, result.steps, bills)
      // The standard rates would have undercharged it by half.
      const standard = bills.reduce((s, b) => s + billUsd(b, { ...c, longContext: undefined }), 0)
      const long = bills.reduce((s, b) => s + billUsd(b, c), 0)
      expect(long).toBeGreaterThan(standard * 1.5)
    } finally {
      await server.close()
    }
  })
})

// The whole product path: a task through runTask, whose every llm_usage row (and the receipt) is its call's bill.
const TASKS = [
  MODELS.find((m) => m.model === 'gpt-5-mini')!,
  MODELS.find((m) => m.model === 'claude-sonnet-4-5')!,
]

describe.each(TASKS)('the recorded cost of a $provider task is its bill', { timeout: 120_000 }, (c) => {
  let cleanup: (() => Promise<void>) | undefined
  afterEach(async () => {
    await cleanup?.()
    cleanup = undefined
  })

  it('for every call, priced from the server-reported usage at the published rates', async () => {
    const server = await start(c)
    const project = makeTempDir('ralph-project-')
    const home = makeTempDir('ralph-home-')
    const db: Db = openDatabase(join(home.path, 'ralph.db'))
    cleanup = async () => {
      db.close()
      project.cleanup()
      home.cleanup()
      await server.close()
    }
    const runs = new RunsRepo(db)
    const events: LoopEvent[] = []
    server.enqueue(
      parsed({ type: 'bugfix', title: 'Write b.txt' }),
      tools(['write_file', { path: 'b.txt', content: 'b\n' }]),
      tools(['list_files', { path: '.' }]),
      tools(['read_file', { path: 'b.txt' }]),
      tools(['mark_complete', { summary: 'Wrote b.txt and read it back.' }]),
    )
    const result = await runTask({
      projectDir: project.path,
      logger: memoryLogger(),
      message: 'write b.txt',
      model: { provider: c.provider, model: c.model, baseUrl: server.baseUrl, apiKey: 'test-key' },
      signal: new AbortController().signal,
      runs,
      emit: (e) => events.push(e),
    })
    expect(result.status).toBe('complete')

    const bills = server.bills()
    const rows = db
      .prepare(
        `SELECT purpose, input_tokens AS input, output_tokens AS output, cache_read_tokens AS cacheRead,
           cache_write_tokens AS cacheWrite, cache_write_1h_tokens AS cacheWrite1h, cost_usd AS usd
         FROM llm_usage ORDER BY id`,
      )
      .all() as {
      purpose: string
      input: number
      output: number
      cacheRead: number
      cacheWrite: number
      cacheWrite1h: number
      usd: number
    }[]
    // One row per answered request, in order: the parse call and the iteration's steps.
    expect(rows.map((r) => r.purpose)).toEqual(['parse', ...Array(4).fill('iteration')])
    expect(rows).toHaveLength(bills.length)
    rows.forEach((row, i) => {
      const bill = bills[i]!
      expect(row).toMatchObject({
        input: promptOf(bill),
        cacheRead: bill.cacheRead,
        cacheWrite: bill.cacheWrite,
        cacheWrite1h: bill.cacheWrite1h,
        output: bill.output,
      })
      expect(Math.abs(row.usd - billUsd(bill, c))).toBeLessThanOrEqual(billUsd(bill, c) * 0.005)
      expect(row.usd).toBeCloseTo(billUsd(bill, c), 9)
    })

    // The receipt adds them up, and says how much of the input the cache served.
    const total = bills.reduce((s, b) => s + billUsd(b, c), 0)
    const receipt = result.receipt!
    expect(receipt.costUsd).toBeCloseTo(total, 7)
    const cacheRead = bills.reduce((s, b) => s + b.cacheRead, 0)
    expect(receipt.cacheReadTokens).toBe(cacheRead)
    const completed = events.at(-1) as Extract<LoopEvent, { type: 'task.completed' }>
    expect(completed.receipt).toEqual(receipt)
    const share = Math.round((cacheRead / receipt.inputTokens) * 100)
    if (cacheRead > 0) expect(formatReceipt(receipt)).toContain(`cached ${share}%`)

    if (c.provider === 'openai') {
      // OpenAI caches a stable prefix by itself: the later steps read it, billed at the cached rate.
      expect(cacheRead).toBeGreaterThan(0)
      const allUncached = bills.reduce(
        (s, b) => s + (promptOf(b) * c.rates.input + b.output * c.rates.output) / 1_000_000,
        0,
      )
      expect(receipt.costUsd).toBeLessThan(allUncached)
    }
  })
})

// A chat answer is several calls (it reads, then answers): each is priced as the call it was. Two ~130K-token prompts
// are each below Sonnet 4.5's 200K threshold, so the bill is at the standard rates; priced as one 260K call, the
// answer would cost twice that.
describe('an Ask answer of several calls', { timeout: 120_000 }, () => {
  it('costs the sum of its calls’ bills, each at the rate of its own prompt', async () => {
    const c = MODELS.find((m) => m.model === 'claude-sonnet-4-5')!
    const server = await start(c, 1_000_000)
    const dir = makeTempDir('ralph-ask-cost-')
    try {
      server.enqueue({ kind: 'tools', calls: [{ name: 'list_files', arguments: {} }] })
      server.enqueue({ kind: 'text', text: 'It holds nothing yet.' })
      const result = await askQuestion({
        projectDir: dir.path,
        // ~130K tokens (the fakes count 4 characters a token).
        question: `What is in this project? Context: ${'a note about the project. '.repeat(21_000)}`,
        model: { provider: c.provider, model: c.model, baseUrl: server.baseUrl, apiKey: 'test-key' },
        signal: new AbortController().signal,
        logger: memoryLogger(),
        onTextDelta: () => undefined,
      })
      const bills = server.bills()
      expect(bills).toHaveLength(2)
      expect(bills.every((b) => promptOf(b) > 100_000 && promptOf(b) < 200_000)).toBe(true)
      expect(result.usage.inputTokens).toBeGreaterThan(200_000)
      const usd = bills.reduce((sum, b) => sum + billUsd(b, c), 0)
      const cost = callsCost({ provider: c.provider, model: c.model }, result.usage.perCall)
      expect(cost.known).toBe(true)
      expect(Math.abs(cost.usd - usd)).toBeLessThanOrEqual(usd * 0.005)
      // The answer's calls added up as one prompt would have been billed at the long-context rates.
      const summed = callsCost({ provider: c.provider, model: c.model }, [result.usage])
      expect(summed.usd).toBeGreaterThan(usd * 1.5)
    } finally {
      await server.close()
      dir.cleanup()
    }
  })
})

// Claude Code's own calls: the real CLI (asked for 1-hour caching, as ENABLE_PROMPT_CACHING_1H does for a user)
// against the Anthropic fake. Each streamed call's usage event splits its cache writes as the fake billed them, and
// priced as the loop prices an engine call until Claude Code's own total arrives, it is that call's bill.
describe('a Claude Code session with 1-hour cache writes', { timeout: 120_000 }, () => {
  it('records each call’s 1-hour writes and prices them at the 1-hour rate', async () => {
    const server = await startAnthropicServer()
    const dirs = await claudeDirs()
    try {
      server.enqueue(
        { kind: 'tools', calls: [{ name: 'Bash', arguments: { command: 'echo one' } }] },
        { kind: 'text', text: 'Done.' },
      )
      const run = await runClaude(dirs, {
        baseUrl: server.url,
        spec: { model: 'claude-sonnet-4-5', system: 'Project rules and tool guide. '.repeat(300) },
        env: { ENABLE_PROMPT_CACHING_1H: '1' },
      })
      expect(run.events.at(-1)).toMatchObject({ type: 'done' })
      const answered = server.bills().filter((b) => b.output > 0 || b.uncachedInput > 0)
      expect(answered.some((b) => b.cacheWrite1h > 0)).toBe(true)
      // The per-call events (cost 0 until the result line's total), one per answered request, in order.
      const calls = ofType(run.events, 'usage').filter((u) => u.costUsd === 0)
      const sonnet = MODELS.find((m) => m.model === 'claude-sonnet-4-5')!
      const billed = calls.map((call) => {
        const bill = answered.find(
          (b) =>
            b.cacheWrite === call.cacheWriteTokens &&
            b.cacheRead === call.cacheReadTokens &&
            b.output === call.outputTokens,
        )
        expect(bill, JSON.stringify(call)).toBeDefined()
        expect(call.cacheWrite1hTokens ?? 0).toBe(bill!.cacheWrite1h)
        const entry = usageEntry({
          purpose: 'iteration',
          model: { provider: 'claude-code', model: call.model ?? 'claude-sonnet-4-5' },
          usage: {
            inputTokens: call.inputTokens,
            outputTokens: call.outputTokens,
            cacheReadTokens: call.cacheReadTokens,
            cacheWriteTokens: call.cacheWriteTokens,
            ...(call.cacheWrite1hTokens ? { cacheWrite1hTokens: call.cacheWrite1hTokens } : {}),
          },
          durationMs: 1,
          taskNumber: 1,
          iteration: 1,
        })
        expect(entry.cacheWrite1hTokens ?? 0).toBe(bill!.cacheWrite1h)
        expect(entry.costUsd).toBeCloseTo(billUsd(bill!, sonnet), 9)
        return bill!
      })
      expect(billed.some((b) => b.cacheWrite1h > 0)).toBe(true)
    } finally {
      await server.close()
      await dirs.cleanup()
    }
  })
})
