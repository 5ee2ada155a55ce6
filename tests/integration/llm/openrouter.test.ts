import { join } from 'node:path'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import type { ModelConfig } from '../../../src/main/llm/createModel'
import { callJson, runModelTurn } from '../../../src/main/llm/modelTurn'
import { estimateCost } from '../../../src/main/llm/pricing'
import { usageEntry } from '../../../src/main/llm/usage'
import { runTask } from '../../../src/main/loop/runTask'
import { openDatabase, type Db } from '../../../src/main/store/database'
import { RunsRepo } from '../../../src/main/store/runsRepo'
import { formatReceipt } from '../../../src/shared/formatLoopEvent'
import type { LoopEvent } from '../../../src/shared/loopEvents'
import { startOpenRouterServer, type OpenRouterServer } from '../../fixtures/wire/openrouterServer'
import { runCli } from '../../helpers/cli'
import { makeTempDir } from '../../helpers/tempDir'
import { parsed, tools } from '../loop/harness'
import { memoryLogger } from '../../../src/main/workspace/logFile'

// OpenRouter through its own provider (@openrouter/ai-sdk-provider), against a fake that speaks its chat
// completions and reports `usage.cost` as OpenRouter does (tests/fixtures/wire/openrouterServer.ts).

let server: OpenRouterServer
let model: ModelConfig
const MODEL = 'anthropic/claude-sonnet-4.5'

beforeAll(async () => {
  server = await startOpenRouterServer({ input: 1.7, output: 9.1 })
  server.apiKey = 'or-test-key'
  model = { provider: 'openrouter', model: MODEL, baseUrl: server.baseUrl, apiKey: 'or-test-key' }
})
afterAll(async () => {
  await server.close()
})
beforeEach(() => {
  server.requests.length = 0
  server.bills.length = 0
})

type WireMessage = { role: string; content: unknown }
const bodyOf = (i: number) =>
  server.requests[i]!.body as { messages: WireMessage[]; usage?: unknown; model: string; stream?: boolean }
/** The content parts of a wire message (a string content has no parts to mark). */
const parts = (m: WireMessage) =>
  (Array.isArray(m.content) ? m.content : []) as { type: string; text?: string; cache_control?: unknown }[]

describe('OpenRouter provider', () => {
  it("passes the loop's Anthropic cache breakpoints through as cache_control (system prompt, last message)", async () => {
    server.enqueue({ kind: 'text', text: 'Hello.', usage: { prompt_tokens: 1200, completion_tokens: 40 } })
    const result = await runModelTurn({
      logger: memoryLogger(),
      model,
      system: 'Stable rules and tool guide.',
      messages: [{ role: 'user', content: 'The task, then iteration 3 feedback.' }],
      tools: {},
      signal: new AbortController().signal,
    })
    expect(result.text).toBe('Hello.')
    expect(server.requests).toHaveLength(1)
    expect(server.requests[0]!.path).toBe('/api/v1/chat/completions')
    expect(server.requests[0]!.headers.authorization).toBe('Bearer or-test-key')
    const body = bodyOf(0)
    expect(body.model).toBe(MODEL)
    // Asked for OpenRouter's usage accounting, which is where the cost comes from.
    expect(body.usage).toEqual({ include: true })
    const system = body.messages.find((m) => m.role === 'system')!
    expect(parts(system)).toEqual([
      { type: 'text', text: 'Stable rules and tool guide.', cache_control: { type: 'ephemeral' } },
    ])
    const user = body.messages.find((m) => m.role === 'user')!
    expect(parts(user).at(-1)).toMatchObject({ cache_control: { type: 'ephemeral' } })
    expect(JSON.stringify(body).split('cache_control').length - 1).toBeLessThanOrEqual(4)
  })

  it('sends no cache_control to a model that caches a repeated prefix by itself (openai/… through OpenRouter)', async () => {
    await runModelTurn({
      logger: memoryLogger(),
      model: { ...model, model: 'openai/gpt-5' },
      system: 'Plain system prompt.',
      messages: [{ role: 'user', content: 'Hi' }],
      tools: {},
      signal: new AbortController().signal,
    })
    expect(JSON.stringify(bodyOf(0))).not.toContain('cache_control')
  })

  it("takes the cost OpenRouter reports as the call's cost, marked as the provider's", async () => {
    server.enqueue({ kind: 'text', text: 'Done.', usage: { prompt_tokens: 5000, completion_tokens: 300 } })
    const turn = await runModelTurn({
      logger: memoryLogger(),
      model,
      system: 'S',
      messages: [{ role: 'user', content: 'Hi' }],
      tools: {},
      signal: new AbortController().signal,
    })
    const billed = server.bills[0]!.cost
    expect(billed).toBeCloseTo((5000 * 1.7 + 300 * 9.1) / 1e6, 10)
    expect(turn.usage).toMatchObject({ inputTokens: 5000, outputTokens: 300, reportedCostUsd: billed })
    const entry = usageEntry({
      purpose: 'verify',
      model,
      usage: turn.usage,
      durationMs: turn.durationMs,
      taskNumber: null,
      iteration: null,
    })
    expect(entry).toMatchObject({ costUsd: billed, costKnown: true, costSource: 'provider' })
    // Not what the catalog would have made of the same tokens: the bill wins.
    expect(estimateCost(MODEL, turn.usage).usd).not.toBeCloseTo(billed, 6)
  })

  it('reports the cost of a JSON call (the task parser) too', async () => {
    server.enqueue({ kind: 'json', value: { ok: true } })
    const result = await callJson({
      model,
      system: 'Answer with JSON.',
      prompt: 'ok?',
      schema: z.object({ ok: z.boolean() }),
      signal: new AbortController().signal,
    })
    expect(result.value).toEqual({ ok: true })
    expect(result.usage.reportedCostUsd).toBe(server.bills[0]!.cost)
    expect(bodyOf(0).stream).toBeFalsy()
  })

  it(
    'runs a whole task; every llm_usage row costs what OpenRouter reported, and the receipt says so',
    { timeout: 120_000 },
    async () => {
      const project = makeTempDir('ralph-project-')
      const home = makeTempDir('ralph-home-')
      const db: Db = openDatabase(join(home.path, 'ralph.db'))
      try {
        server.enqueue(
          parsed({ type: 'bugfix', title: 'Write b.txt' }),
          tools(['write_file', { path: 'b.txt', content: 'b\n' }]),
          tools(['read_file', { path: 'b.txt' }]),
          tools(['mark_complete', { summary: 'Wrote b.txt and read it back.' }]),
        )
        const events: LoopEvent[] = []
        const result = await runTask({
          projectDir: project.path,
          logger: memoryLogger(),
          message: 'write b.txt',
          model,
          signal: new AbortController().signal,
          runs: new RunsRepo(db),
          emit: (e) => events.push(e),
        })
        expect(result.status).toBe('complete')
        const rows = db
          .prepare('SELECT purpose, provider, model, cost_usd AS usd FROM llm_usage ORDER BY id')
          .all() as { purpose: string; provider: string; model: string; usd: number }[]
        expect(rows.map((r) => r.purpose)).toEqual(['parse', 'iteration', 'iteration', 'iteration'])
        expect(rows).toHaveLength(server.bills.length)
        rows.forEach((row, i) => {
          expect(row).toMatchObject({ provider: 'openrouter', model: MODEL })
          expect(row.usd).toBeCloseTo(server.bills[i]!.cost, 9)
        })
        const total = server.bills.reduce((s, b) => s + b.cost, 0)
        const receipt = result.receipt!
        expect(receipt.costUsd).toBeCloseTo(total, 8)
        expect(receipt.models).toEqual([
          expect.objectContaining({
            provider: 'openrouter',
            model: MODEL,
            calls: 4,
            costSource: 'provider',
          }),
        ])
        expect(receipt.models![0]!.costUsd).toBeCloseTo(total, 8)
        expect(formatReceipt(receipt)).toContain(
          `by model: ${MODEL} ~$${total.toFixed(4)} (4 calls, cost reported by the provider)`,
        )
        // Every iteration request streamed with usage included (without it a stream reports no usage at all).
        const streamed = server.requests.filter((r) => (r.body as { stream?: boolean }).stream)
        expect(streamed).toHaveLength(3)
        for (const r of streamed)
          expect(r.body).toMatchObject({ stream_options: { include_usage: true }, usage: { include: true } })
      } finally {
        db.close()
        project.cleanup()
        home.cleanup()
      }
    },
  )

  it(
    'ralph run --json with provider openrouter and OPENROUTER_API_KEY: the receipt is what OpenRouter billed',
    { timeout: 120_000 },
    async () => {
      const project = makeTempDir('ralph-project-')
      const home = makeTempDir('ralph-home-')
      try {
        server.enqueue(
          parsed({ type: 'bugfix', title: 'Write b.txt' }),
          tools(
            ['write_file', { path: 'b.txt', content: 'b\n' }],
            ['mark_complete', { summary: 'Wrote b.txt.' }],
          ),
        )
        const result = await runCli(['run', 'write b.txt', '--json', '--project', project.path], {
          env: {
            RALPH_HOME: home.path,
            RALPH_PROVIDER: 'openrouter',
            RALPH_MODEL: MODEL,
            RALPH_BASE_URL: server.baseUrl,
            RALPH_API_KEY: '',
            OPENROUTER_API_KEY: 'or-test-key',
          },
        })
        expect(result.stderr).toBe('')
        expect(result.code).toBe(0)
        const events = result.stdout
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l) as LoopEvent)
        const completed = events.at(-1) as Extract<LoopEvent, { type: 'task.completed' }>
        expect(completed.type).toBe('task.completed')
        expect(server.bills).toHaveLength(2)
        const total = server.bills.reduce((s, b) => s + b.cost, 0)
        expect(completed.receipt!.costUsd).toBeCloseTo(total, 9)
        expect(completed.receipt!.models).toEqual([
          expect.objectContaining({ provider: 'openrouter', model: MODEL, calls: 2, costSource: 'provider' }),
        ])
        expect(server.requests.every((r) => r.headers.authorization === 'Bearer or-test-key')).toBe(true)
      } finally {
        project.cleanup()
        home.cleanup()
      }
    },
  )
})
