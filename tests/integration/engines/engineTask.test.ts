// A whole task through each agent engine: `ralph run --engine claude-code|codex` in a child process drives the REAL
// Claude Code / Codex CLI (node_modules/.bin), inside the real sandbox, against the wire-format fake of its
// provider. Ralph's parse, phase gate, quality gates and snapshots run around the engine's sessions unchanged.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { startAnthropicServer, type AnthropicServer } from '../../fixtures/wire/anthropicServer'
import { openDatabase } from '../../../src/main/store/database'
import { runCli } from '../../helpers/cli'
import { makeTempDir } from '../../helpers/tempDir'
import { ndjson } from '../build/buildCliFixture'
import { eightFlavors, flavorPlan, flavors, flavorsFile } from '../loop/fixtures'
import { parsed } from '../loop/harness'

const BIN = resolve(__dirname, '../../../node_modules/.bin')
// Real CLIs starting inside bubblewrap on a busy 2-core machine: generous budgets.
const TASK_MS = 240_000

type Event = {
  type: string
  task?: number
  iteration?: number
  name?: string
  args?: Record<string, unknown>
  ok?: boolean
  phase?: string
  severity?: string
  receipt?: { costUsd: number; calls: number; tokens?: unknown }
}

const MARKERS =
  '{/* TASK-1 [ADD]: 2 nighttime flavors (Moonlit Calm, Deep Rest) */}\n          {/* EXISTING 8 flavors PRESERVED */}'

describe('a whole task through Claude Code', { timeout: TASK_MS }, () => {
  let server: AnthropicServer
  let project: ReturnType<typeof makeTempDir>
  let home: ReturnType<typeof makeTempDir>
  let env: NodeJS.ProcessEnv
  beforeEach(async () => {
    server = await startAnthropicServer()
    project = makeTempDir('ralph-engine-cc-')
    home = makeTempDir('ralph-engine-home-')
    env = {
      PATH: `${BIN}:${process.env.PATH ?? '/usr/bin:/bin'}`,
      RALPH_HOME: home.path,
      // Ralph's own calls (the parse) and Claude Code's go to the same Anthropic fake, as a user's would.
      RALPH_PROVIDER: 'anthropic',
      RALPH_MODEL: 'claude-sonnet-4-5',
      RALPH_BASE_URL: `${server.url}/v1`,
      RALPH_API_KEY: 'sk-ant-test',
      ANTHROPIC_BASE_URL: server.url,
      ANTHROPIC_API_KEY: 'sk-ant-test',
    }
    mkdirSync(join(project.path, 'src'))
    mkdirSync(join(project.path, '.ralph'))
    writeFileSync(join(project.path, 'src/flavors.ts'), eightFlavors)
    writeFileSync(join(project.path, '.ralph/plan.tsx'), flavorPlan(''))
  })
  afterEach(async () => {
    await server.close()
    project.cleanup()
    home.cleanup()
  })

  it('PLAN → BUILD → gates → task-1-post, the engine writing with its own tools and completing over MCP', async () => {
    const abs = (rel: string) => join(project.path, rel)
    server.enqueue(
      parsed({
        type: 'mutation',
        title: 'Two night flavors',
        requirements: [{ marker: 'ADD', description: '2 nighttime flavors', count: 2 }],
        scope: { preserve: ['the 8 existing flavors'], affectedFiles: ['src/flavors.ts'] },
      }),
      // Iteration 1 (PLAN): Claude Code reads the plan, then writes it with the task's markers.
      { kind: 'tools', calls: [{ name: 'Read', arguments: { file_path: abs('.ralph/plan.tsx') } }] },
      {
        kind: 'tools',
        calls: [
          { name: 'Write', arguments: { file_path: abs('.ralph/plan.tsx'), content: flavorPlan(MARKERS) } },
        ],
      },
      { kind: 'text', text: 'Plan updated.' },
      // Iteration 2 (BUILD): the code, then Ralph's mark_complete over MCP.
      { kind: 'tools', calls: [{ name: 'Read', arguments: { file_path: abs('src/flavors.ts') } }] },
      {
        kind: 'tools',
        calls: [
          {
            name: 'Write',
            arguments: { file_path: abs('src/flavors.ts'), content: flavorsFile(flavors.added) },
          },
        ],
      },
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
      [
        'run',
        'add 2 more drinks for nighttime',
        '--engine',
        'claude-code',
        '--json',
        '--project',
        project.path,
      ],
      { env },
    )
    expect(result.code, `${result.stdout.slice(-3000)}\n${result.stderr}`).toBe(0)
    const events = ndjson<Event>(result.stdout)
    const calls = events.filter((e) => e.type === 'tool.called')
    expect(calls.map((c) => [c.iteration, c.name])).toEqual([
      [1, 'read_file'],
      [1, 'write_file'],
      [2, 'read_file'],
      [2, 'write_file'],
      [2, 'mark_complete'],
    ])
    expect(calls.every((c) => c.ok)).toBe(true)
    expect(calls[1]!.args).toMatchObject({ path: '.ralph/plan.tsx' })
    expect(events.find((e) => e.type === 'phase.changed')).toMatchObject({ iteration: 2 })
    expect(events.filter((e) => e.type === 'gate.result').every((e) => e.severity !== 'failure')).toBe(true)
    const done = events.at(-1)!
    expect(done.type).toBe('task.completed')
    // Claude Code's own reported cost is the task's (no second pricing of its calls).
    expect(done.receipt!.costUsd).toBeGreaterThan(0)
    expect(readFileSync(join(project.path, 'src/flavors.ts'), 'utf8')).toContain('Moonlit Calm')
    expect(readFileSync(join(project.path, '.ralph/status.txt'), 'utf8').trim()).toBe('complete')
    // Each session was told what it is: Ralph's engine, its own tools for Ralph's, Ralph's tools over MCP.
    const systems = server.requests.map((r) => JSON.stringify((r.body as { system?: unknown }).system ?? ''))
    const told = systems.filter((sys) =>
      sys.includes("You are running as Ralph's iteration engine (Claude Code)"),
    )
    expect(told.length).toBeGreaterThanOrEqual(2)
    expect(told.every((sys) => sys.includes('mark_complete') && sys.includes('## Phase'))).toBe(true)
    const list = await runCli(['snapshot', 'list', '--json', '--project', project.path], { env })
    const tags = (JSON.parse(list.stdout) as { items: { tag: string }[] }).items.map((s) => s.tag)
    expect(tags).toEqual(expect.arrayContaining(['task-1-pre', 'task-1-post']))
    // The login the session used (the live `engine.session` event's) is kept with the run: a reloaded card says it.
    const db = openDatabase(join(home.path, 'ralph.db'))
    try {
      const row = db.prepare('SELECT engine_login AS login FROM runs').get() as { login: string | null }
      expect(row.login).toMatch(/^ANTHROPIC_API_KEY → /)
    } finally {
      db.close()
    }
  })

  it('a token cap stops the engine session from its streamed usage: "token cap reached", exit 4', async () => {
    const abs = (rel: string) => join(project.path, rel)
    server.enqueue(
      parsed({ type: 'bugfix', title: 'Night flavors' }),
      // Claude Code's first call alone (its system prompt and tools) passes the cap: its usage stops the session.
      { kind: 'tools', calls: [{ name: 'Read', arguments: { file_path: abs('src/flavors.ts') } }] },
      { kind: 'text', text: 'Read it.' },
    )
    const result = await runCli(
      [
        'run',
        'add a night flavor',
        '--engine',
        'claude-code',
        '--max-tokens',
        '8000',
        '--json',
        '--project',
        project.path,
      ],
      { env },
    )
    expect(result.code, `${result.stdout.slice(-3000)}\n${result.stderr}`).toBe(4)
    const events = ndjson<Event & { message?: string; reason?: string; tokenCap?: number }>(result.stdout)
    expect(events.find((e) => e.type === 'iteration.started')).toMatchObject({ tokenCap: 8000 })
    const failed = events.at(-1)!
    expect(failed).toMatchObject({ type: 'task.failed', reason: 'cost-cap' })
    expect(failed.message).toMatch(/^Stopped: token cap of 8,000 tokens reached \([\d,]+ used\)\./)
    // Stopped on the first call's usage. The stop follows the streamed usage, so a second call Claude Code had
    // already sent may still be answered (unlike the dollar cap, the token cap is not held at the proxy) — never a
    // third: the parser's call, the first session call, at most one more.
    const answered = server.requests.filter((r) => (r.notes as { usage?: unknown }).usage !== undefined)
    expect(answered.length).toBeLessThanOrEqual(3)
  })
})
