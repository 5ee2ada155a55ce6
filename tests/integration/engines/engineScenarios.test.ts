// The issue's scenarios through the REAL Claude Code CLI (node_modules/.bin/claude), end to end: `ralph run|build
// --engine claude-code --json` in a child process, Claude Code inside the real sandbox against the Anthropic wire
// fake. Ralph's stall recovery, usage-limit wait and queue verification work around the engine's sessions as they
// do around the built-in loop. (Stop and the explained failures: engineScenariosFailures.test.ts.)
import { readFileSync, writeFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { addTask, setSpec } from '../../../src/main/queue'
import { memoryLogger } from '../../../src/main/workspace/logFile'
import type { ScriptedReply } from '../../fixtures/fakeLlmServer'
import {
  cliOutput,
  projectFiles,
  scenarioEnv,
  snapshotTags,
  startLimitGate,
  startRalph,
  useScenarioProject,
  type ScenarioEvent,
} from '../../fixtures/engines/engineScenarioKit'
import { runCli } from '../../helpers/cli'
import { CHECK_SCRIPT, ndjson } from '../build/buildCliFixture'
import { parsed } from '../loop/harness'

// Real CLIs starting inside bubblewrap on a busy 2-core machine: generous budgets.
const TASK_MS = 300_000

const t = useScenarioProject('ralph-engsc-')

/** One Claude Code session that writes the greeting and completes over Ralph's MCP tool. */
const workingSession = (): ScriptedReply[] => [
  {
    kind: 'tools',
    calls: [{ name: 'Write', arguments: { file_path: t.abs('src/greeting.txt'), content: 'hello world\n' } }],
  },
  {
    kind: 'tools',
    calls: [{ name: 'mcp__ralph__mark_complete', arguments: { summary: 'The greeting names the world.' } }],
  },
  { kind: 'text', text: 'Done.' },
]

/** The prompt each Claude Code session was started with (its first request's first user message). */
const sessionPrompts = () =>
  t.server.requests
    .filter((r) => {
      const body = r.body as { messages?: unknown[]; system?: unknown } | undefined
      const answered = (r.notes as { usage?: unknown }).usage !== undefined
      return (
        answered && body?.messages?.length === 1 && JSON.stringify(body.system ?? '').includes('Claude Code')
      )
    })
    .map((r) => JSON.stringify((r.body as { messages: unknown[] }).messages[0]))

describe('engine scenarios through the real Claude Code', { timeout: TASK_MS }, () => {
  it('a stall recovered: three identical sessions → stall.detected (recover), a snapshot, feedback.md, then the work completes', async () => {
    t.server.enqueue(parsed({ type: 'bugfix', title: 'Greet the world' }))
    // Three sessions that do exactly the same: read the file, answer.
    for (let i = 0; i < 3; i++)
      t.server.enqueue(
        { kind: 'tools', calls: [{ name: 'Read', arguments: { file_path: t.abs('src/greeting.txt') } }] },
        { kind: 'text', text: 'Still looking at the greeting.' },
      )
    t.server.enqueue(...workingSession())
    const result = await runCli(
      [
        'run',
        'make the greeting name the world',
        '--engine',
        'claude-code',
        '--json',
        '--project',
        t.project.path,
      ],
      { env: t.env },
    )
    expect(result.code, cliOutput(result)).toBe(0)
    const events = ndjson<ScenarioEvent>(result.stdout)
    const calls = events.filter((e) => e.type === 'tool.called')
    expect(calls.map((c) => [c.iteration, c.name, c.args])).toEqual([
      [1, 'read_file', { path: 'src/greeting.txt' }],
      [2, 'read_file', { path: 'src/greeting.txt' }],
      [3, 'read_file', { path: 'src/greeting.txt' }],
      [4, 'write_file', { path: 'src/greeting.txt', content: 'hello world\n' }],
      [4, 'mark_complete', { summary: 'The greeting names the world.' }],
    ])
    const stalls = events.filter((e) => e.type === 'stall.detected')
    expect(stalls).toEqual([expect.objectContaining({ iteration: 3, kind: 'repeat', action: 'recover' })])
    const recovery = events.find((e) => e.type === 'snapshot.created' && e.kind === 'stall-recovery')
    expect(recovery, 'the stall-recovery snapshot').toMatchObject({ iteration: 3 })
    // feedback.md went to the next session: its prompt names the recovery and the repeated call.
    const prompts = sessionPrompts()
    expect(prompts).toHaveLength(4)
    expect(prompts.slice(0, 3).some((p) => p.includes(recovery!.tag!))).toBe(false)
    expect(prompts[3]).toContain(recovery!.tag!)
    expect(prompts[3]).toContain('read_file')
    expect(events.at(-1)).toMatchObject({ type: 'task.completed', iteration: 4 })
    expect(readFileSync(t.abs('src/greeting.txt'), 'utf8')).toBe('hello world\n')
    expect(await snapshotTags(t.project.path, t.env)).toEqual(
      expect.arrayContaining(['task-1-pre', recovery!.tag!, 'task-1-post']),
    )
  })

  it('a usage limit waited on: limit.waiting, limit.resumed, then a fresh session completes; --no-wait fails (exit 5)', async () => {
    const gate = await startLimitGate(t.server.url, 5)
    try {
      const gated = scenarioEnv(t.home.path, t.server.url, gate.url)
      t.server.enqueue(parsed({ type: 'bugfix', title: 'Greet the world' }), ...workingSession())
      const run = startRalph(
        [
          'run',
          'make the greeting name the world',
          '--engine',
          'claude-code',
          '--json',
          '--project',
          t.project.path,
        ],
        gated,
      )
      // The session ended on the limit; the plan's window has "reset" by the time the wait is over.
      await run.until('"limit.waiting"')
      gate.open()
      const code = await run.closed
      expect(code, cliOutput(run.out)).toBe(0)
      const events = ndjson<ScenarioEvent>(run.out.stdout)
      const waiting = events.find((e) => e.type === 'limit.waiting')!
      expect(waiting).toMatchObject({ task: 1, iteration: 1 })
      expect(waiting.message).toMatch(/usage limit reached/)
      // The reset Claude Code reported, a few seconds ahead: waited for, not the 15 minutes of an unknown reset.
      expect(waiting.waitMs).toBeGreaterThan(0)
      expect(waiting.waitMs).toBeLessThanOrEqual(5_000)
      const types = events.map((e) => e.type)
      expect(types.indexOf('limit.resumed')).toBeGreaterThan(types.indexOf('limit.waiting'))
      const resumed = events.find((e) => e.type === 'limit.resumed')!
      expect(resumed.waitedMs).toBeGreaterThan(0)
      // The fresh session after the wait did the work, in the same iteration.
      expect(events.filter((e) => e.type === 'tool.called').map((c) => [c.iteration, c.name])).toEqual([
        [1, 'write_file'],
        [1, 'mark_complete'],
      ])
      const done = events.at(-1)!
      expect(done).toMatchObject({ type: 'task.completed', receipt: { limitWaits: 1 } })
      expect(gate.refused).toBeGreaterThan(0)
      expect(readFileSync(t.abs('src/greeting.txt'), 'utf8')).toBe('hello world\n')

      // --no-wait: the same limit fails the task at once, as the usage-limit it is.
      const before = projectFiles(t.project.path)
      const shut = await startLimitGate(t.server.url, 5)
      try {
        t.server.enqueue(parsed({ type: 'bugfix', title: 'Greet again' }))
        const noWait = await runCli(
          [
            'run',
            'greet again',
            '--engine',
            'claude-code',
            '--no-wait',
            '--json',
            '--project',
            t.project.path,
          ],
          { env: scenarioEnv(t.home.path, t.server.url, shut.url) },
        )
        expect(noWait.code, cliOutput(noWait)).toBe(5)
        const failed = ndjson<ScenarioEvent>(noWait.stdout).at(-1)!
        expect(failed).toMatchObject({ type: 'task.failed', task: 2, reason: 'usage-limit' })
        expect(failed.message).toContain('--no-wait')
        expect(failed.message).toMatch(/usage limit reached/)
        expect(noWait.stdout).not.toContain('"limit.waiting"')
        expect(projectFiles(t.project.path)).toEqual(before)
        expect(await snapshotTags(t.project.path, t.env)).toContain('task-2-pre')
      } finally {
        await shut.close()
      }
    } finally {
      await gate.close()
    }
  })

  it("a build with verification: the attempt runs through Claude Code, Ralph's judge checks an LLM and a DET criterion", async () => {
    writeFileSync(t.abs('check.cjs'), CHECK_SCRIPT)
    writeFileSync(t.abs('spec.md'), '# Greeting\n')
    const options = { logger: memoryLogger() }
    await setSpec({ projectDir: t.project.path, spec: 'spec.md', options })
    const criterion = 'src/greeting.txt greets the world by name'
    const id = (
      await addTask({
        projectDir: t.project.path,
        name: 'Greet the world',
        notes: 'Make src/greeting.txt say hello world.',
        accept: [`LLM: ${criterion}`, 'DET: `node check.cjs src/greeting.txt "hello world"` exits 0'],
        options,
      })
    ).ids[0]!
    t.server.enqueue(parsed({ type: 'fresh', title: 'Greet the world' }), ...workingSession(), {
      kind: 'verdict',
      answer: 'YES',
      reason: 'src/greeting.txt reads hello world',
    })
    const result = await runCli(['build', '--engine', 'claude-code', '--json', '--project', t.project.path], {
      env: t.env,
    })
    expect(result.code, cliOutput(result)).toBe(0)
    type BuildEvent = ScenarioEvent & {
      verdict?: { ref: string; kind: string; answer: string }
      outcome?: string
      status?: string
      accepted?: string[]
    }
    const events = ndjson<BuildEvent>(result.stdout)
    expect(events.filter((e) => e.type === 'tool.called').map((c) => c.name)).toEqual([
      'write_file',
      'mark_complete',
    ])
    const verdicts = events.filter((e) => e.type === 'verify.criterion').map((e) => e.verdict)
    expect(verdicts).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ kind: 'LLM', answer: 'YES' }),
        expect.objectContaining({ kind: 'DET', answer: 'YES' }),
      ]),
    )
    expect(events.find((e) => e.type === 'verify.completed')).toMatchObject({ outcome: 'PASS' })
    expect(events.at(-1)).toMatchObject({ type: 'build.finished', status: 'complete', accepted: [id] })
    // The judge's request was Ralph's own, sealed with its nonce, not a Claude Code session's.
    const judge = t.server.requests.filter((r) => JSON.stringify(r.body ?? '').includes(criterion)).at(-1)!
    expect(JSON.stringify(judge.body)).toMatch(/<<<VERDICT:V1:AC1:NONCE=[0-9A-F]{6}>>>/)
    expect(readFileSync(t.abs('src/greeting.txt'), 'utf8')).toBe('hello world\n')
  })
})
