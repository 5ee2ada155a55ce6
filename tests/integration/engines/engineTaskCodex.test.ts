// A whole task and a queue build through the REAL Codex CLI: `ralph run|build --engine codex` in a child process
// drives `codex exec` (node_modules/.bin/codex) inside the real sandbox. Codex reads the user's own
// `~/.codex/config.toml` (copied by the runner into the session's home), whose `model_providers` entry points at
// the Responses wire fake; Ralph's own calls (the parse, the judge) go to the same fake as its `openai` provider.
// Ralph's parse, phase gate, quality gates, snapshots and verification run around the engine's sessions unchanged.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { addTask, setSpec } from '../../../src/main/queue'
import { priceFor } from '../../../src/main/llm/pricing'
import { memoryLogger } from '../../../src/main/workspace/logFile'
import { formatUsd } from '../../../src/shared/formatLoopEvent'
import type { ScriptedReply } from '../../fixtures/fakeLlmServer'
import { startResponsesServer, type ResponsesServer } from '../../fixtures/wire/responsesServer'
import type { Bill } from '../../fixtures/wire/shared'
import { runCli } from '../../helpers/cli'
import { makeTempDir } from '../../helpers/tempDir'
import { ndjson } from '../build/buildCliFixture'
import { eightFlavors, flavorPlan } from '../loop/fixtures'
import { parsed } from '../loop/harness'

const BIN = resolve(__dirname, '../../../node_modules/.bin')
// Real CLIs starting inside bubblewrap on a busy 2-core machine: generous budgets.
const TASK_MS = 300_000

const KEY = 'sk-ralph-codex-test'
/** Ralph's own provider (the parse, the judge). */
const RALPH_MODEL = 'gpt-5-mini'
/**
 * Codex's model, from the user's config.toml. One the offline catalog prices exactly (catalog.ts, $1.25 / $10 per
 * 1M tokens, cached input $0.125) and codex-cli 0.169.0 has no metadata for, so it offers Ralph's MCP tools up
 * front (its known models, `gpt-5.5` …, hide them behind `tool_search`).
 */
const CODEX_MODEL = 'gpt-5.1'
const GPT_5_1 = { input: 1.25, output: 10, cacheRead: 0.125 }

type Event = {
  type: string
  task?: number
  iteration?: number
  name?: string
  args?: Record<string, unknown>
  ok?: boolean
  phase?: string
  severity?: string
  tag?: string
  outcome?: string
  status?: string
  accepted?: string[]
  verdict?: { ref: string; kind: string; answer: string }
  receipt?: {
    costUsd: number
    calls: number
    inputTokens: number
    outputTokens: number
    models?: {
      provider: string
      model: string
      calls: number
      inputTokens: number
      outputTokens: number
      costUsd: number
      costSource?: string
    }[]
  }
}

const MARKERS =
  '{/* TASK-1 [ADD]: 2 nighttime flavors (Moonlit Calm, Deep Rest) */}\n          {/* EXISTING 8 flavors PRESERVED */}'

/** The user's `~/.codex/config.toml`: their model and a provider pointing at the fake, its key from the env. */
function userCodexConfig(server: ResponsesServer, model = CODEX_MODEL): string {
  return [
    `model = "${model}"`,
    'model_provider = "ralphfake"',
    '',
    '[model_providers.ralphfake]',
    'name = "Ralph test fake"',
    `base_url = "${server.baseUrl}"`,
    'wire_api = "responses"',
    'env_key = "OPENAI_API_KEY"',
    'request_max_retries = 0',
    'stream_max_retries = 0',
    'stream_idle_timeout_ms = 60000',
    '',
  ].join('\n')
}

/** A Codex `exec_command` call running `cmd` in the project. */
const shell = (cmd: string): ScriptedReply => ({
  kind: 'tools',
  calls: [{ name: 'exec_command', arguments: { cmd } }],
})

/** A patch applied the way Codex's models without its freeform tool do: `apply_patch` through exec_command. */
const patch = (body: string) => shell(`apply_patch <<'EOF'\n*** Begin Patch\n${body}*** End Patch\nEOF\n`)

interface Ctx {
  server: ResponsesServer
  project: ReturnType<typeof makeTempDir>
  home: ReturnType<typeof makeTempDir>
  userHome: ReturnType<typeof makeTempDir>
  env: NodeJS.ProcessEnv
}

function useCodexProject(model = CODEX_MODEL): Ctx {
  const t = {} as Ctx
  beforeEach(async () => {
    t.server = await startResponsesServer({ apiKey: KEY })
    // A request beyond the script gets an answer that changes nothing, and the counts below catch it.
    t.server.fallback = { kind: 'text', text: 'Nothing more.' }
    t.project = makeTempDir('ralph-engine-codex-')
    t.home = makeTempDir('ralph-engine-home-')
    // The user's own home: their Codex configuration, which the runner copies into each session's home.
    t.userHome = makeTempDir('ralph-engine-user-')
    mkdirSync(join(t.userHome.path, '.codex'))
    writeFileSync(join(t.userHome.path, '.codex/config.toml'), userCodexConfig(t.server, model))
    t.env = {
      PATH: `${BIN}:${process.env.PATH ?? '/usr/bin:/bin'}`,
      HOME: t.userHome.path,
      RALPH_HOME: t.home.path,
      // Ralph's own calls and Codex's go to the same Responses fake, as a user's would go to OpenAI.
      RALPH_PROVIDER: 'openai',
      RALPH_MODEL,
      RALPH_BASE_URL: t.server.baseUrl,
      RALPH_API_KEY: KEY,
      // The key the user's provider entry names (`env_key`), passed to Codex by the adapter.
      OPENAI_API_KEY: KEY,
    }
  })
  afterEach(async () => {
    await t.server.close()
    t.project.cleanup()
    t.home.cleanup()
    t.userHome.cleanup()
  })
  return t
}

/** The model of each answered request with its bill, in order. */
function billsByModel(server: ResponsesServer): { model: string; bill: Bill }[] {
  return server.requests.flatMap((r) =>
    r.notes.bill ? [{ model: String((r.body as { model: unknown }).model), bill: r.notes.bill as Bill }] : [],
  )
}

/** The text of every message of one role in a recorded Responses request. */
function messageTexts(body: unknown, role: string): string[] {
  const input = (body as { input: { role?: string; content?: { text?: string }[] }[] }).input
  return input.filter((i) => i.role === role).flatMap((i) => (i.content ?? []).map((c) => c.text ?? ''))
}

type DeclaredTool = { type: string; name?: string; tools?: { name: string }[] }
const toolsOf = (body: unknown): DeclaredTool[] => (body as { tools?: DeclaredTool[] }).tools ?? []

describe('a whole task through Codex', { timeout: TASK_MS }, () => {
  const t = useCodexProject()

  it('PLAN → BUILD → gates → task-1-post, Codex writing with its shell and patches and completing over MCP', async () => {
    const { project, server } = t
    mkdirSync(join(project.path, 'src'))
    mkdirSync(join(project.path, '.ralph'))
    writeFileSync(join(project.path, 'src/flavors.ts'), eightFlavors)
    writeFileSync(join(project.path, '.ralph/plan.tsx'), flavorPlan(''))
    server.enqueue(
      parsed({
        type: 'mutation',
        title: 'Two night flavors',
        requirements: [{ marker: 'ADD', description: '2 nighttime flavors', count: 2 }],
        scope: { preserve: ['the 8 existing flavors'], affectedFiles: ['src/flavors.ts'] },
      }),
      // Iteration 1 (PLAN): Codex reads the plan with its shell, then patches the task's markers into it.
      shell('cat .ralph/plan.tsx'),
      patch(
        '*** Update File: .ralph/plan.tsx\n' +
          '@@\n         <Section gumdrop="features" files={[\'src/flavors.ts\']}>\n' +
          '-          \n' +
          `+          ${MARKERS.split('\n').join('\n+')}\n` +
          '           <Gumdrop use="card" />\n',
      ),
      { kind: 'text', text: 'Plan updated.' },
      // Iteration 2 (BUILD): the code, then Ralph's mark_complete over MCP (server `ralph`).
      shell('cat src/flavors.ts'),
      patch(
        '*** Update File: src/flavors.ts\n' +
          "@@\n   { name: 'Spark', kick: 'high' },\n" +
          "+  { name: 'Moonlit Calm', kick: 'high' },\n" +
          "+  { name: 'Deep Rest', kick: 'high' },\n" +
          ' ]\n',
      ),
      {
        kind: 'tools',
        calls: [
          {
            name: 'mcp__ralph__mark_complete',
            arguments: { summary: 'Added Moonlit Calm and Deep Rest after the 8 flavors.' },
          },
        ],
      },
      { kind: 'text', text: 'Done.' },
    )
    const result = await runCli(
      ['run', 'add 2 more drinks for nighttime', '--engine', 'codex', '--json', '--project', project.path],
      { env: t.env },
    )
    if (process.env.RALPH_CAPTURE_CODEX_TASK)
      writeFileSync(process.env.RALPH_CAPTURE_CODEX_TASK, result.stdout)
    expect(result.code, `${result.stdout.slice(-3000)}\n${result.stderr}`).toBe(0)
    const events = ndjson<Event>(result.stdout)

    // Codex's own tools under Ralph's names, each in its iteration; Ralph's tool reached over MCP.
    const calls = events.filter((e) => e.type === 'tool.called')
    expect(calls.map((c) => [c.iteration, c.name])).toEqual([
      [1, 'run_command'],
      [1, 'apply_patch'],
      [2, 'run_command'],
      [2, 'apply_patch'],
      [2, 'mark_complete'],
    ])
    expect(calls.every((c) => c.ok)).toBe(true)
    expect(calls[0]!.args).toEqual({ command: 'cat .ralph/plan.tsx' })
    expect(calls[1]!.args).toEqual({ changes: [{ path: '.ralph/plan.tsx', kind: 'update' }] })
    expect(calls[3]!.args).toEqual({ changes: [{ path: 'src/flavors.ts', kind: 'update' }] })
    expect(calls[4]!.args).toEqual({ summary: 'Added Moonlit Calm and Deep Rest after the 8 flavors.' })

    expect(events.filter((e) => e.type === 'iteration.started').map((e) => e.phase)).toEqual([
      'plan',
      'build',
    ])
    expect(events.find((e) => e.type === 'phase.changed')).toMatchObject({ iteration: 2 })
    const gates = events.filter((e) => e.type === 'gate.result')
    expect(gates.length).toBeGreaterThan(0)
    expect(gates.every((e) => e.severity !== 'failure')).toBe(true)
    const done = events.at(-1)!
    expect(done.type).toBe('task.completed')

    // The files on disk: the plan Codex patched in its staged .ralph/ copied back, and the code.
    expect(readFileSync(join(project.path, '.ralph/plan.tsx'), 'utf8')).toBe(flavorPlan(MARKERS))
    const code = readFileSync(join(project.path, 'src/flavors.ts'), 'utf8')
    expect(code).toContain(
      "{ name: 'Moonlit Calm', kick: 'high' },\n  { name: 'Deep Rest', kick: 'high' },\n]",
    )
    expect(code).toContain("{ name: 'Spark', kick: 'high' }")
    expect(readFileSync(join(project.path, '.ralph/status.txt'), 'utf8').trim()).toBe('complete')
    expect(events.filter((e) => e.type === 'snapshot.created').map((e) => e.tag)).toEqual([
      'task-1-pre',
      'task-1-post',
    ])
    const list = await runCli(['snapshot', 'list', '--json', '--project', project.path], { env: t.env })
    const tags = (JSON.parse(list.stdout) as { items: { tag: string }[] }).items.map((s) => s.tag)
    expect(tags).toEqual(expect.arrayContaining(['task-1-pre', 'task-1-post']))

    // Every scripted reply was used, and nothing more was asked: Ralph's parse, then Codex's 3 + 4 requests.
    const billed = billsByModel(server)
    expect(billed.map((b) => b.model)).toEqual([RALPH_MODEL, ...Array<string>(7).fill(CODEX_MODEL)])

    // Each session got Ralph's iteration prompt: the instructions (with the phase) as Codex's developer message,
    // the task in the user message, and Ralph's tools as MCP server `ralph` from the first request on.
    const codexRequests = server.requests.filter(
      (r) => r.notes.bill && (r.body as { model: unknown }).model === CODEX_MODEL,
    )
    for (const [i, r] of [codexRequests[0]!, codexRequests[3]!].entries()) {
      expect(messageTexts(r.body, 'developer').join('\n')).toContain('## Phase')
      expect(messageTexts(r.body, 'user').join('\n')).toContain('add 2 more drinks for nighttime')
      const ralph = toolsOf(r.body).find((tool) => tool.name === 'mcp__ralph')
      expect(ralph?.type, `session ${i + 1} offers Ralph's tools`).toBe('namespace')
      expect(ralph!.tools!.map((tool) => tool.name)).toContain('mark_complete')
    }
    // The user's own configuration was read from their home, and left as it was.
    expect(readFileSync(join(t.userHome.path, '.codex/config.toml'), 'utf8')).toBe(userCodexConfig(server))

    // The receipt: Codex reports tokens only, so its calls are priced from the catalog by the model its
    // config selects: exactly the tokens the service billed times gpt-5.1's rates.
    const receipt = done.receipt!
    const codex = billed.filter((b) => b.model === CODEX_MODEL).map((b) => b.bill)
    const sum = (f: (b: Bill) => number) => codex.reduce((s, b) => s + f(b), 0)
    const codexModel = receipt.models!.find((m) => m.provider === 'codex')!
    expect(codexModel).toMatchObject({
      model: CODEX_MODEL,
      // One usage report per session: one per iteration.
      calls: 2,
      inputTokens: sum((b) => b.uncachedInput + b.cacheRead),
      outputTokens: sum((b) => b.output),
      costSource: 'catalog',
    })
    const codexCost =
      (sum((b) => b.uncachedInput) * GPT_5_1.input +
        sum((b) => b.cacheRead) * GPT_5_1.cacheRead +
        sum((b) => b.output) * GPT_5_1.output) /
      1e6
    expect(codexCost).toBeGreaterThan(0)
    expect(codexModel.costUsd).toBeCloseTo(codexCost, 7)
    expect(receipt.models!.map((m) => [m.provider, m.model])).toEqual([
      ['openai', RALPH_MODEL],
      ['codex', CODEX_MODEL],
    ])
    expect(receipt.costUsd).toBeCloseTo(
      receipt.models!.reduce((s, m) => s + m.costUsd, 0),
      7,
    )
  })
})

const CRITERION = 'hello.txt greets the world by name'

describe('a queue build through Codex', { timeout: TASK_MS }, () => {
  const t = useCodexProject()

  it("Codex's attempt is verified by Ralph's judge (nonce-sealed verdict) and a DET check; the task is accepted", async () => {
    const { project, server } = t
    const options = { logger: memoryLogger() }
    writeFileSync(join(project.path, 'spec.md'), '# Hello\n')
    await setSpec({ projectDir: project.path, spec: 'spec.md', options })
    const id = (
      await addTask({
        projectDir: project.path,
        name: 'Write hello.txt',
        notes: 'Greet the world in hello.txt.',
        accept: [`LLM: ${CRITERION}`, 'DET: `test -f hello.txt`'],
        options,
      })
    ).ids[0]!
    server.enqueue(
      parsed({ type: 'fresh', title: 'Write hello.txt' }),
      // The attempt: one Codex session writes hello.txt with a patch and completes over MCP.
      patch('*** Add File: hello.txt\n+hello world\n'),
      {
        kind: 'tools',
        calls: [{ name: 'mcp__ralph__mark_complete', arguments: { summary: 'Wrote hello.txt.' } }],
      },
      { kind: 'text', text: 'Done.' },
      // Ralph's judge of the LLM criterion.
      { kind: 'verdict', answer: 'YES', reason: "hello.txt reads 'hello world'" },
    )
    const result = await runCli(['build', '--engine', 'codex', '--json', '--project', project.path], {
      env: t.env,
    })
    expect(result.code, `${result.stdout.slice(-3000)}\n${result.stderr}`).toBe(0)
    const events = ndjson<Event>(result.stdout)

    expect(events.filter((e) => e.type === 'tool.called').map((e) => [e.name, e.ok])).toEqual([
      ['apply_patch', true],
      ['mark_complete', true],
    ])
    expect(readFileSync(join(project.path, 'hello.txt'), 'utf8')).toBe('hello world\n')
    // The task's criteria (AC…; verification's own checks report under their names).
    const verdicts = events
      .filter((e) => e.type === 'verify.criterion' && e.verdict!.ref.startsWith('AC'))
      .map((e) => e.verdict!)
      .sort((a, b) => a.ref.localeCompare(b.ref))
    expect(verdicts).toEqual([
      expect.objectContaining({ ref: 'AC1', kind: 'LLM', answer: 'YES' }),
      expect.objectContaining({ ref: 'AC2', kind: 'DET', text: '`test -f hello.txt`', answer: 'YES' }),
    ])
    expect(events.find((e) => e.type === 'verify.completed')).toMatchObject({ outcome: 'PASS' })
    expect(events.at(-1)).toMatchObject({ type: 'build.finished', status: 'complete', accepted: [id] })

    // Who asked what: Ralph's parse, Codex's three requests, Ralph's judge — whose system prompt carried the
    // nonce-sealed verdict opener, which Codex's requests never saw.
    const requests = server.requests.filter((r) => r.path === '/v1/responses')
    expect(requests.map((r) => [(r.body as { model: string }).model, r.status])).toEqual([
      [RALPH_MODEL, 200],
      [CODEX_MODEL, 200],
      [CODEX_MODEL, 200],
      [CODEX_MODEL, 200],
      [RALPH_MODEL, 200],
    ])
    const opener = /<<<VERDICT:V1:AC1:NONCE=[0-9A-F]{6}>>>/
    expect(JSON.stringify(requests[4]!.body)).toMatch(opener)
    expect(JSON.stringify(requests[4]!.body)).toContain(CRITERION)
    for (const r of requests.slice(1, 4)) expect(JSON.stringify(r.body)).not.toMatch(opener)
  })
})

/** One of Codex's own models: it edits with its freeform `apply_patch` tool and finds MCP tools by `tool_search`. */
const KNOWN_MODEL = 'gpt-5.5'

describe("a task through one of Codex's own models", { timeout: TASK_MS }, () => {
  const t = useCodexProject(KNOWN_MODEL)

  it("edits with Codex's freeform apply_patch and finds Ralph's mark_complete through its tool search", async () => {
    const { project, server } = t
    server.enqueue(
      parsed({ type: 'fresh', title: 'Write hello.txt' }),
      {
        kind: 'tools',
        calls: [
          {
            name: 'apply_patch',
            arguments: { input: '*** Begin Patch\n*** Add File: hello.txt\n+hello world\n*** End Patch\n' },
          },
        ],
      },
      {
        kind: 'tools',
        calls: [{ name: 'tool_search', arguments: { query: 'mark task complete', limit: 8 } }],
      },
      {
        kind: 'tools',
        calls: [{ name: 'mcp__ralph__mark_complete', arguments: { summary: 'Wrote hello.txt.' } }],
      },
      { kind: 'text', text: 'Done.' },
    )
    const result = await runCli(
      ['run', 'write hello world to hello.txt', '--engine', 'codex', '--json', '--project', project.path],
      { env: t.env },
    )
    expect(result.code, `${result.stdout.slice(-3000)}\n${result.stderr}`).toBe(0)
    const events = ndjson<Event>(result.stdout)
    expect(events.filter((e) => e.type === 'tool.called').map((e) => [e.iteration, e.name, e.ok])).toEqual([
      [1, 'apply_patch', true],
      [1, 'mark_complete', true],
    ])
    expect(readFileSync(join(project.path, 'hello.txt'), 'utf8')).toBe('hello world\n')
    const done = events.at(-1)!
    expect(done.type).toBe('task.completed')
    expect(events.filter((e) => e.type === 'snapshot.created').map((e) => e.tag)).toEqual([
      'task-1-pre',
      'task-1-post',
    ])

    // Codex's request offered its freeform patch tool and the search, not Ralph's tools up front.
    const codexRequests = server.requests.filter((r) => (r.body as { model: unknown }).model === KNOWN_MODEL)
    expect(codexRequests.map((r) => r.status)).toEqual([200, 200, 200, 200])
    const first = toolsOf(codexRequests[0]!.body)
    expect(first.find((tool) => tool.name === 'apply_patch')?.type).toBe('custom')
    expect(first.some((tool) => tool.type === 'tool_search' || tool.name === 'tool_search')).toBe(true)
    expect(first.some((tool) => tool.name === 'mcp__ralph')).toBe(false)

    // The model named in the user's config is the one the receipt names and prices: the catalog's price of this
    // id times the tokens billed (the offline catalog has no gpt-5.5 and prices it by its longest prefix, gpt-5).
    const codex = billsByModel(server)
      .filter((b) => b.model === KNOWN_MODEL)
      .map((b) => b.bill)
    const sum = (f: (b: Bill) => number) => codex.reduce((s, b) => s + f(b), 0)
    const price = priceFor(KNOWN_MODEL)
    const expected = price
      ? (sum((b) => b.uncachedInput) * price.input +
          sum((b) => b.cacheRead) * price.cacheRead +
          sum((b) => b.output) * price.output) /
        1e6
      : 0
    expect(done.receipt!.models!.find((m) => m.provider === 'codex')).toMatchObject({
      model: KNOWN_MODEL,
      calls: 1,
      inputTokens: sum((b) => b.uncachedInput + b.cacheRead),
      outputTokens: sum((b) => b.output),
    })
    expect(done.receipt!.models!.find((m) => m.provider === 'codex')!.costUsd).toBeCloseTo(expected, 7)
  })
})

describe('the cost cap through Codex', { timeout: TASK_MS }, () => {
  const t = useCodexProject()

  it("holds at Ralph's proxy inside a turn: the first call bounded, the second refused, the cost-cap message and exit 4", async () => {
    const { project, server } = t
    // Codex reports usage only when its turn ends; the proxy counts each call as it passes. gpt-5.1 ($1.25/M in,
    // $10/M out): Codex's first prompt (~12,000 tokens billed, ~16,800 as the cap counts its size) fits in $0.03
    // after Ralph's parse; the second call of the same turn, after the first's ~$0.015, does not.
    server.enqueue(
      parsed({ type: 'bugfix', title: 'Greet the world' }),
      shell('echo one > one.txt'),
      shell('echo two > two.txt'),
      { kind: 'text', text: 'Done.' },
    )
    const result = await runCli(
      [
        'run',
        'make the greeting name the world',
        '--engine',
        'codex',
        '--max-cost',
        '0.03',
        '--json',
        '--project',
        project.path,
      ],
      { env: t.env },
    )
    expect(result.code, `${result.stdout.slice(-3000)}\n${result.stderr}`).toBe(4)
    const events = ndjson<Event & { reason?: string; message?: string }>(result.stdout)
    const failed = events.at(-1)!
    expect(failed).toMatchObject({ type: 'task.failed', task: 1, iteration: 1, reason: 'cost-cap' })
    expect(failed.message).toContain('Stopped: cost cap of $0.03 reached')
    expect(failed.message).toContain("Ralph's cost cap of $0.03 is reached")
    expect(failed.message).toContain('so it was not sent')
    expect(failed.message).not.toContain('Stopped by the user')

    // One call of the session reached the service, its answer bounded (Codex sets no max_output_tokens itself).
    const codexCalls = server.requests.filter((r) => (r.body as { model: unknown }).model === CODEX_MODEL)
    expect(codexCalls).toHaveLength(1)
    expect((codexCalls[0]!.body as { max_output_tokens?: number }).max_output_tokens).toBeLessThan(2_000)
    expect(readFileSync(join(project.path, 'one.txt'), 'utf8')).toBe('one\n')
    expect(() => readFileSync(join(project.path, 'two.txt'))).toThrow()

    // The receipt has the call Codex never reported (its turn ended on the refusal), from the proxy's reading:
    // the tokens the service billed at gpt-5.1's rates. Within the cap, and the spend the message names.
    const bill = billsByModel(server).find((b) => b.model === CODEX_MODEL)!.bill
    const receipt = failed.receipt!
    expect(receipt.models!.find((m) => m.provider === 'codex')).toMatchObject({
      model: CODEX_MODEL,
      calls: 1,
      inputTokens: bill.uncachedInput + bill.cacheRead,
      outputTokens: bill.output,
    })
    expect(receipt.models!.find((m) => m.provider === 'codex')!.costUsd).toBeCloseTo(
      (bill.uncachedInput * GPT_5_1.input +
        bill.cacheRead * GPT_5_1.cacheRead +
        bill.output * GPT_5_1.output) /
        1e6,
      7,
    )
    expect(receipt.costUsd).toBeGreaterThan(0.01)
    expect(receipt.costUsd).toBeLessThanOrEqual(0.03)
    expect(failed.message).toContain(`(${formatUsd(receipt.costUsd)} spent)`)
  })
})
