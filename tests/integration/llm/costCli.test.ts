import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { openDatabase } from '../../../src/main/store/database'
import type { TaskReceipt } from '../../../src/shared/loopEvents'
import { startResponsesServer } from '../../fixtures/wire/responsesServer'
import { runCli } from '../../helpers/cli'
import { makeTempDir } from '../../helpers/tempDir'
import { parsed, tools } from '../loop/harness'

// The CLI as a user runs it: `ralph run --json` with --provider openai and --base-url on the Responses fake, which
// caches the stable prefix by itself as OpenAI does. Its receipt and its SQLite rows carry the cache reads, and
// the cost is the bill at gpt-5-mini's catalog rates ($0.25 in, $0.025 cached in (OpenAI's exact rate), $2 out per 1M tokens).
describe('ralph run --json on OpenAI Responses', { timeout: 120_000 }, () => {
  let project: ReturnType<typeof makeTempDir>
  let home: ReturnType<typeof makeTempDir>
  beforeEach(() => {
    project = makeTempDir('ralph-project-')
    home = makeTempDir('ralph-home-')
  })
  afterEach(() => {
    project.cleanup()
    home.cleanup()
  })

  it('reports cache reads and prices them at the cached rate', async () => {
    const server = await startResponsesServer()
    try {
      server.enqueue(
        parsed({ type: 'bugfix', title: 'Write b.txt' }),
        tools(['write_file', { path: 'b.txt', content: 'b\n' }]),
        tools(['read_file', { path: 'b.txt' }]),
        tools(['mark_complete', { summary: 'Wrote b.txt and read it back.' }]),
      )
      const env = { RALPH_HOME: home.path, RALPH_API_KEY: 'test-key' }
      const args = ['run', 'write b.txt', '--json', '--project', project.path]
      const flags = ['--provider', 'openai', '--model', 'gpt-5-mini', '--base-url', server.baseUrl]
      const result = await runCli([...args, ...flags], { env })
      expect(result.stderr).toBe('')
      expect(result.code).toBe(0)
      const events = result.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { type: string; receipt?: TaskReceipt })
      const receipt = events.find((e) => e.type === 'task.completed')!.receipt!

      const bills = server.bills()
      const sum = (k: 'uncachedInput' | 'cacheRead' | 'cacheWrite' | 'output') =>
        bills.reduce((s, b) => s + b[k], 0)
      expect(sum('cacheRead')).toBeGreaterThan(0)
      const bill = (sum('uncachedInput') * 0.25 + sum('cacheRead') * 0.025 + sum('output') * 2) / 1e6
      expect(receipt).toMatchObject({
        inputTokens: sum('uncachedInput') + sum('cacheRead'),
        cacheReadTokens: sum('cacheRead'),
        cacheWriteTokens: 0,
        outputTokens: sum('output'),
        calls: bills.length,
      })
      expect(receipt.costUsd).toBeCloseTo(bill, 7)

      const db = openDatabase(join(home.path, 'ralph.db'))
      try {
        const rows = db.prepare('SELECT cache_read_tokens AS r FROM llm_usage ORDER BY id').all() as {
          r: number
        }[]
        expect(rows.map((r) => r.r)).toEqual(bills.map((b) => b.cacheRead))
      } finally {
        db.close()
      }
    } finally {
      await server.close()
    }
  })

  it('keeps the user’s prices, with cache rates when given', async () => {
    const env = { RALPH_HOME: home.path }
    const set = await runCli(['config', 'set', 'price', 'my-model', '1', '2', '0.1', '1.25', '2'], { env })
    expect(set.code).toBe(0)
    expect((await runCli(['config', 'set', 'price', 'other', '1', '2', '-1'], { env })).code).not.toBe(0)
    const bad1h = await runCli(['config', 'set', 'price', 'other', '1', '2', '0.1', '1.25', 'two'], { env })
    expect(bad1h.code).not.toBe(0)
    expect(bad1h.stderr).toContain(
      'CACHE_WRITE_1H must be a price in USD per 1M tokens, 0 or more, not "two"',
    )
    const table = JSON.parse((await runCli(['config', 'get', 'prices', '--json'], { env })).stdout) as {
      prices: Record<string, unknown>
    }
    expect(table.prices['my-model']).toEqual({
      input: 1,
      output: 2,
      cacheRead: 0.1,
      cacheWrite: 1.25,
      cacheWrite1h: 2,
      source: 'yours',
    })
    expect(table.prices['gpt-5-mini']).toMatchObject({ input: 0.25, cacheRead: 0.025, source: 'built-in' })
    expect(table.prices['claude-sonnet-4-5']).toMatchObject({ input: 3, source: 'built-in' })
    const text = (await runCli(['config', 'get', 'prices'], { env })).stdout
    expect(text).toMatch(/^claude-sonnet-4-5\s+3\s+15\s+0\.3\s+3\.75\s+6\s+built-in$/m)
    expect(text).toMatch(/^my-model\s+1\s+2\s+0\.1\s+1\.25\s+2\s+yours$/m)
    const window = JSON.parse((await runCli(['config', 'get', 'context', 'gpt-5', '--json'], { env })).stdout)
    expect(window).toMatchObject({ tokens: 400_000, source: 'built-in' })
  })
})
