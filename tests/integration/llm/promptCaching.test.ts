import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { ModelConfig } from '../../../src/main/llm/createModel'
import { runTask } from '../../../src/main/loop/runTask'
import { openDatabase, type Db } from '../../../src/main/store/database'
import { RunsRepo } from '../../../src/main/store/runsRepo'
import type { ScriptedReply } from '../../fixtures/fakeLlmServer'
import { startAnthropicServer, type AnthropicServer } from '../../fixtures/wire/anthropicServer'
import { startResponsesServer, type ResponsesServer } from '../../fixtures/wire/responsesServer'
import type { Bill, WireRequest } from '../../fixtures/wire/shared'
import { makeTempDir } from '../../helpers/tempDir'
import { memoryLogger } from '../../../src/main/workspace/logFile'

// Prompt caching through the real loop (runTask: parse, iterations with tools, gates) and the real provider clients,
// against the wire-format fakes of Anthropic's Messages API and OpenAI's Responses API, which bill cache reads the
// way the services document them. The project has rules files: a 1 MB AGENTS.md, a CLAUDE.md the user turned off,
// a .cursorrules.

const MB = 1_000_000
let project: { path: string; cleanup(): void }
let home: { path: string; cleanup(): void }
let db: Db

const put = (rel: string, text: string) => {
  mkdirSync(dirname(join(project.path, rel)), { recursive: true })
  writeFileSync(join(project.path, rel), text)
}

beforeEach(() => {
  project = makeTempDir('ralph-cache-')
  home = makeTempDir('ralph-cache-home-')
  db = openDatabase(join(home.path, 'ralph.db'))
  for (let i = 0; i < 4; i++) put(`src/m${i}.ts`, `export const m${i} = ${i}\n`.repeat(40) + '// end\n')
  put('AGENTS.md', `Run the tests with npm test.\n${'Agents rule line.\n'.repeat(MB / 18)}`)
  put('CLAUDE.md', 'CLAUDE-ONLY: never read this.')
  put('.cursorrules', 'Prefer named exports.')
  put('.ralph/config.json', JSON.stringify({ rules: { disabled: ['CLAUDE.md'] } }))
})
afterEach(() => {
  db.close()
  project.cleanup()
  home.cleanup()
})

const tools = (name: string, args: Record<string, unknown>): ScriptedReply => ({
  kind: 'tools',
  calls: [{ name, arguments: args }],
})

/** Parse, iteration 1 of four steps (three tool calls, then an answer), iteration 2 of two (a write, then done). */
const script = (): ScriptedReply[] => [
  {
    kind: 'text',
    text: JSON.stringify({
      type: 'bugfix',
      title: 'Fix m1',
      requirements: [{ marker: 'FIX', description: 'm1', count: null }],
      scope: { preserve: [], affectedFiles: ['src/m1.ts'] },
      clarification: null,
    }),
  },
  tools('read_file', { path: 'src/m0.ts' }),
  tools('read_file', { path: 'src/m1.ts' }),
  tools('read_file', { path: 'src/m2.ts' }),
  { kind: 'text', text: 'Read the modules; fixing next iteration.' },
  tools('write_file', { path: 'src/fix.ts', content: 'export const fixed = true\n' }),
  tools('mark_complete', { summary: 'Fixed m1 in src/fix.ts.' }),
]

async function run(model: ModelConfig) {
  return runTask({
    projectDir: project.path,
    logger: memoryLogger(),
    message: 'fix m1',
    model,
    maxIterations: 2,
    signal: new AbortController().signal,
    runs: new RunsRepo(db),
    emit: () => {},
  })
}

/** The iterations' requests: those that declare the tools (the parse declares none). */
const iterationRequests = (requests: WireRequest[]) =>
  requests.filter((r) => {
    const body = r.body as { tools?: unknown[] }
    return r.notes.bill !== undefined && Array.isArray(body.tools) && body.tools.length > 0
  })

const breakpoints = (body: unknown) => (JSON.stringify(body).match(/"cache_control"/g) ?? []).length

interface AnthropicBody {
  system: { type: string; text: string; cache_control?: unknown }[]
  tools: { name: string }[]
  messages: { role: string; content: string | { type: string; text?: string; cache_control?: unknown }[] }[]
}

describe('prompt caching through the loop', () => {
  let anthropic: AnthropicServer
  let responses: ResponsesServer
  afterEach(async () => {
    await anthropic?.close()
    await responses?.close()
  })

  it('Anthropic: reads the cache from step 2, at most 4 breakpoints, the same prefix across iterations', async () => {
    anthropic = await startAnthropicServer()
    anthropic.enqueue(...script())
    const result = await run({
      provider: 'anthropic',
      model: 'claude-sonnet-4-5',
      baseUrl: anthropic.baseUrl,
      apiKey: 'k',
    })
    expect(result.status).toBe('complete')
    const requests = iterationRequests(anthropic.requests)
    expect(requests).toHaveLength(6) // four steps, then two
    const bills = requests.map((r) => r.notes.bill as Bill)
    for (const r of requests) {
      expect(breakpoints(r.body)).toBeGreaterThanOrEqual(2)
      expect(breakpoints(r.body)).toBeLessThanOrEqual(4)
    }
    // Iteration 1: from step 2 on, everything up to the previous step's last message is a cache read.
    expect(bills[0]!.cacheRead).toBe(0)
    for (const bill of bills.slice(1, 4)) {
      expect(bill.cacheRead).toBeGreaterThan(0)
      expect(bill.cacheRead).toBeGreaterThan(bill.cacheWrite + bill.uncachedInput)
    }
    // Iteration 2's first request reads the stable prefix the first iteration wrote (system, tools, task, plan).
    expect(bills[4]!.cacheRead).toBeGreaterThan(0)
    const total = bills.reduce((s, b) => s + b.uncachedInput + b.cacheRead + b.cacheWrite, 0)
    expect(bills.reduce((s, b) => s + b.cacheRead, 0) / total).toBeGreaterThan(0.6)

    const bodies = requests.map((r) => r.body as AnthropicBody)
    const first = bodies[0]!
    const second = bodies[4]!
    // Tools: the same definitions in the same order, byte for byte, in every request.
    for (const b of bodies) expect(JSON.stringify(b.tools)).toBe(JSON.stringify(first.tools))
    // The system prompt: the stable part (with a breakpoint) is byte-identical; the phase comes after it.
    for (const b of bodies) expect(b.system[0]).toEqual(first.system[0])
    expect(first.system[0]!.cache_control).toEqual({ type: 'ephemeral' })
    expect(first.system[1]!.text).toMatch(/^\s*## Phase\n/)
    // The first user message: the task part is byte-identical across the iterations, the iteration's part is not.
    const userParts = (b: AnthropicBody) =>
      b.messages[0]!.content as { text: string; cache_control?: unknown }[]
    expect(userParts(second)[0]).toEqual(userParts(first)[0])
    expect(userParts(first)[0]!.cache_control).toEqual({ type: 'ephemeral' })
    expect(userParts(first)[0]!.text).toContain('## .ralph/task.md')
    expect(userParts(first)[1]!.text).toMatch(/^# Iteration 1 of at most 2/)
    expect(userParts(second)[1]!.text).toMatch(/^# Iteration 2 of at most 2/)
    // The last message carries the moving breakpoint.
    const last = bodies[2]!.messages.at(-1)!.content as { cache_control?: unknown }[]
    expect(last.at(-1)!.cache_control).toEqual({ type: 'ephemeral' })

    // Rules files: in the stable part, after the instructions; the 1 MB file capped with a note; the one turned
    // off is absent; in a fixed order.
    const stable = first.system[0]!.text
    expect(stable).toContain("## The project's rules files")
    expect(stable).toContain('### AGENTS.md\nRun the tests with npm test.')
    expect(stable).toMatch(/capped: AGENTS\.md is \d+ bytes and only its first 12000 characters fit here/)
    expect(stable.indexOf('### AGENTS.md')).toBeLessThan(stable.indexOf('### .cursorrules'))
    expect(stable).toContain('Prefer named exports.')
    expect(JSON.stringify(first)).not.toContain('CLAUDE-ONLY')
    expect(stable.indexOf('You are Ralph')).toBe(0)
    expect(stable.length).toBeLessThan(40_000)
  }, 120_000)

  it('Anthropic: a step of 12 tool calls (more than the 20-block lookback) still reads the whole previous step', async () => {
    anthropic = await startAnthropicServer()
    const reads = Array.from({ length: 12 }, (_, i) => ({
      name: 'read_file',
      arguments: { path: `src/m${i % 4}.ts`, offset: i + 1 },
    }))
    anthropic.enqueue(
      script()[0]!,
      { kind: 'tools', calls: reads },
      tools('read_file', { path: 'src/m3.ts' }),
      tools('write_file', { path: 'src/fix.ts', content: 'export const fixed = true\n' }),
      tools('mark_complete', { summary: 'Fixed m1 in src/fix.ts.' }),
    )
    const result = await run({
      provider: 'anthropic',
      model: 'claude-sonnet-4-5',
      baseUrl: anthropic.baseUrl,
      apiKey: 'k',
    })
    expect(result.status).toBe('complete')
    const requests = iterationRequests(anthropic.requests)
    const bills = requests.map((r) => r.notes.bill as Bill)
    for (const r of requests) expect(breakpoints(r.body)).toBeLessThanOrEqual(4)
    // Step 2 reads everything step 1 sent (its prompt was cached whole), not just the stable prefix.
    const step1Input = bills[0]!.uncachedInput + bills[0]!.cacheRead + bills[0]!.cacheWrite
    expect(bills[1]!.cacheRead).toBe(step1Input)
    // Step 3 comes after 24 new blocks: it reads step 2's whole prompt through the previous step's breakpoint.
    const step2Input = bills[1]!.uncachedInput + bills[1]!.cacheRead + bills[1]!.cacheWrite
    expect(bills[2]!.cacheRead).toBe(step2Input)
  }, 120_000)

  it('OpenAI Responses: a prompt_cache_key per task and cached tokens from step 2', async () => {
    responses = await startResponsesServer()
    responses.enqueue(...script())
    const result = await run({ provider: 'openai', model: 'gpt-5', baseUrl: responses.baseUrl, apiKey: 'k' })
    expect(result.status).toBe('complete')
    const requests = iterationRequests(responses.requests)
    expect(requests).toHaveLength(6)
    const keys = new Set(requests.map((r) => (r.body as { prompt_cache_key?: string }).prompt_cache_key))
    expect(keys.size).toBe(1)
    expect([...keys][0]).toMatch(/^ralph-[0-9a-f]{32}$/)
    const bills = requests.map((r) => r.notes.bill as Bill)
    expect(bills[0]!.cacheRead).toBe(0)
    for (const bill of bills.slice(1)) expect(bill.cacheRead).toBeGreaterThan(0)
    expect(
      (requests[1]!.notes.usage as { input_tokens_details: { cached_tokens: number } }).input_tokens_details
        .cached_tokens,
    ).toBeGreaterThan(0)
    // Tools in the same order every call; the input starts with the same bytes in both iterations.
    const body = (i: number) => requests[i]!.body as { tools: unknown[]; input: unknown[] }
    for (let i = 1; i < requests.length; i++)
      expect(JSON.stringify(body(i).tools)).toBe(JSON.stringify(body(0).tools))
    const text1 = JSON.stringify(body(0).input)
    const text2 = JSON.stringify(body(4).input)
    const stableEnd = text1.indexOf('# Iteration 1 of at most 2')
    expect(stableEnd).toBeGreaterThan(1000)
    expect(text2.slice(0, stableEnd)).toBe(text1.slice(0, stableEnd))
    expect(text1).not.toContain('CLAUDE-ONLY')
  }, 120_000)
})
