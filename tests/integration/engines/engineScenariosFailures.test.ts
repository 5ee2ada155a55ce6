// Stop and the explained failures through the REAL Claude Code CLI: `ralph run --engine claude-code --json` in a
// child process, stopped with SIGINT while the session sleeps in a Bash call (nothing of the session left running),
// and ended by a missing CLI, a missing login and a CLI that dies mid-session — each a task error saying which and
// what to do, task-1-pre intact and the project's files as they were.
import { chmodSync, existsSync, mkdirSync, realpathSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeEach, describe, expect, it } from 'vitest'
import {
  BIN,
  cliOutput,
  processesOf,
  projectFiles,
  snapshotTags,
  startRalph,
  stillAlive,
  type ProcessInfo,
  useScenarioProject,
  type ScenarioEvent,
} from '../../fixtures/engines/engineScenarioKit'
import { formatUsd } from '../../../src/shared/formatLoopEvent'
import { runCli } from '../../helpers/cli'
import { makeTempDir } from '../../helpers/tempDir'
import { ndjson } from '../build/buildCliFixture'
import { parsed } from '../loop/harness'

// Real CLIs starting inside bubblewrap on a busy 2-core machine: generous budgets.
const TASK_MS = 240_000
/** The PATH of a machine without Claude Code. */
const SYSTEM_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'

const t = useScenarioProject('ralph-engfail-')
let before: Record<string, string>
beforeEach(() => {
  before = projectFiles(t.project.path)
  t.server.enqueue(parsed({ type: 'bugfix', title: 'Greet the world' }))
})

const run = (extraEnv: NodeJS.ProcessEnv = {}) =>
  runCli(
    [
      'run',
      'make the greeting name the world',
      '--engine',
      'claude-code',
      '--json',
      '--project',
      t.project.path,
    ],
    {
      env: { ...t.env, ...extraEnv },
    },
  )

/** The task ended with a failure event, its pre-task snapshot kept and the project's files untouched. */
async function expectFailedIntact(result: { code: number | null; stdout: string; stderr: string }) {
  expect(result.code, cliOutput(result)).toBe(5)
  const failed = ndjson<ScenarioEvent>(result.stdout).at(-1)!
  expect(failed).toMatchObject({ type: 'task.failed', task: 1, reason: 'provider' })
  expect(projectFiles(t.project.path)).toEqual(before)
  expect(await snapshotTags(t.project.path, t.env)).toContain('task-1-pre')
  return failed.message!
}

describe('Stop and failures through the real Claude Code', { timeout: TASK_MS }, () => {
  it('SIGINT while the session runs a long Bash call: exit 130 soon, the task interrupted, no process of the session left', async () => {
    // A duration no other test uses: the marker of this session's command.
    const marker = `sleep ${900 + Math.floor(Math.random() * 99)}.${process.pid % 1000}`
    t.server.enqueue(
      // Not a standalone sleep, which Claude Code's Bash refuses.
      {
        kind: 'tools',
        calls: [{ name: 'Bash', arguments: { command: `echo napping && ${marker} && echo awake` } }],
      },
      { kind: 'text', text: 'Slept.' },
    )
    const child = startRalph(
      [
        'run',
        'make the greeting name the world',
        '--engine',
        'claude-code',
        '--json',
        '--project',
        t.project.path,
      ],
      t.env,
    )
    let session: ProcessInfo[] = []
    // The session is inside the Bash call once its sleep runs.
    await expect
      .poll(
        () => {
          session = processesOf(t.project.path, marker)
          if (child.child.exitCode !== null) throw new Error(`ralph ended first:\n${cliOutput(child.out)}`)
          return session.some((p) => p.cmdline.startsWith('sleep '))
        },
        { timeout: 180_000, interval: 100 },
      )
      .toBe(true)
    const cmdlines = session.map((p) => p.cmdline).join('\n')
    expect(cmdlines).toContain('claude')
    expect(cmdlines).toContain('bwrap')
    const stoppedAt = performance.now()
    child.child.kill('SIGINT')
    let endedAt = 0
    child.child.stdout!.on('data', () => {
      if (!endedAt && child.out.stdout.includes('"task.failed"')) endedAt = performance.now()
    })
    const code = await child.closed
    const closedAt = performance.now()
    expect(code, cliOutput(child.out)).toBe(130)
    // DESIGN.md §10: stopped within 5 s, the children included (the process's own grace is 3 s) …
    expect(closedAt - stoppedAt).toBeLessThan(5_000)
    // … and the process exits once the task has ended (nothing of the session keeps it alive).
    expect(endedAt).toBeGreaterThan(0)
    expect(closedAt - endedAt).toBeLessThan(1_500)
    // Ctrl+C is a shutdown: the task ends interrupted (resumable), not stopped by the user (issue 37).
    expect(ndjson<ScenarioEvent>(child.out.stdout).at(-1)).toMatchObject({
      type: 'task.failed',
      reason: 'interrupted',
    })
    // Nothing of the session outlives the stop: not claude, not bwrap, not the sleep.
    await expect.poll(() => stillAlive(session).map((p) => p.cmdline), { timeout: 5_000 }).toEqual([])
    expect(processesOf(t.project.path, marker)).toEqual([])
    expect(projectFiles(t.project.path)).toEqual(before)
    expect(await snapshotTags(t.project.path, t.env)).toContain('task-1-pre')
  })

  it('Claude Code not installed: the task error says so and how to install it', async () => {
    const result = await run({ PATH: SYSTEM_PATH })
    const message = await expectFailedIntact(result)
    expect(message).toContain('Claude Code is not installed')
    expect(message).toContain('npm install -g @anthropic-ai/claude-code')
    // Nothing reached the model, not even Ralph's parse: a missing engine fails before any paid call.
    expect(t.server.requests).toHaveLength(0)
  })

  it('Claude Code not logged in (no key, no login files): the task error says how to log in', async () => {
    const emptyHome = makeTempDir('ralph-engfail-nologin-')
    try {
      const result = await run({
        HOME: emptyHome.path,
        ANTHROPIC_API_KEY: '',
        ANTHROPIC_AUTH_TOKEN: '',
        CLAUDE_CODE_OAUTH_TOKEN: '',
      })
      const message = await expectFailedIntact(result)
      expect(message).toContain('Log in to Claude Code in a terminal')
      expect(message).toContain('/login')
      expect(message).toMatch(/Not logged in/)
    } finally {
      emptyHome.cleanup()
    }
  })

  it('Claude Code dying mid-session: "ended unexpectedly" with what to do', async () => {
    // `claude` on PATH is the real one, killed as soon as it has printed its first line.
    const wrapper = makeTempDir('ralph-engfail-bin-')
    try {
      const real = realpathSync(join(BIN, 'claude'))
      writeFileSync(
        join(wrapper.path, 'claude'),
        [
          '#!/bin/sh',
          'out="$HOME/claude-stdout.$$"',
          'mkfifo "$out"',
          'exec 4<&0',
          `'${real}' "$@" <&4 >"$out" &`,
          'pid=$!',
          'exec 3<"$out"',
          'IFS= read -r line <&3',
          `printf '%s\\n' "$line"`,
          'kill -9 "$pid"',
          'wait "$pid"',
          '',
        ].join('\n'),
      )
      chmodSync(join(wrapper.path, 'claude'), 0o755)
      // If the model is asked before the kill, its answer never comes.
      t.server.enqueue({ kind: 'hang' })
      const result = await run({ PATH: `${wrapper.path}:${SYSTEM_PATH}` })
      const message = await expectFailedIntact(result)
      expect(message).toContain('Claude Code ended unexpectedly')
      expect(message).toContain('was killed (signal 9, exit code 137)')
      expect(message).toContain('The pre-task snapshot is intact; retry the task')
      expect(message).toContain('run `claude` in a terminal')
    } finally {
      wrapper.cleanup()
    }
  })
})

describe('the cost cap through the real Claude Code', { timeout: TASK_MS }, () => {
  it("holds at Ralph's proxy: the first call's answer bounded, the second refused, the cost-cap message and exit 4", async () => {
    // Claude 3.5 Haiku ($0.80/M, $1/M a cache write, $4/M of answer): Claude Code's first prompt (~35,000 tokens
    // as the fake counts it, ~46,000 as the cap counts its size) fits in $0.05 after Ralph's parse; the second,
    // after the first call's ~$0.035, does not.
    mkdirSync(join(t.project.path, '.ralph'), { recursive: true })
    writeFileSync(
      join(t.project.path, '.ralph/config.json'),
      '{"engineModel": "claude-3-5-haiku-20241022"}\n',
    )
    // Quick tools: Claude Code asks again at once, and the proxy refuses that call before it reaches the service.
    t.server.enqueue(
      { kind: 'tools', calls: [{ name: 'Bash', arguments: { command: 'echo one > src/one.txt' } }] },
      { kind: 'tools', calls: [{ name: 'Bash', arguments: { command: 'echo two > src/two.txt' } }] },
      { kind: 'text', text: 'Done.' },
    )
    const result = await runCli(
      [
        'run',
        'make the greeting name the world',
        '--engine',
        'claude-code',
        '--max-cost',
        '0.05',
        '--json',
      ].concat(['--project', t.project.path]),
      { env: t.env },
    )
    expect(result.code, cliOutput(result)).toBe(4)
    const events = ndjson<ScenarioEvent>(result.stdout)
    const failed = events.at(-1)!
    expect(failed).toMatchObject({ type: 'task.failed', task: 1, reason: 'cost-cap' })
    expect(failed.message).toContain('Stopped: cost cap of $0.05 reached')
    // The proxy's refusal, in the task's end: the second call was never sent.
    expect(failed.message).toContain("Ralph's cost cap of $0.05 is reached")
    expect(failed.message).toContain('so it was not sent')
    expect(failed.message).not.toContain('Stopped by the user')
    const sessionCalls = t.server.requests.filter((r) =>
      JSON.stringify((r.body as { system?: unknown }).system ?? '').includes("Ralph's iteration engine"),
    )
    expect(sessionCalls).toHaveLength(1)
    // Its answer bounded to what the cap had left (Claude Code asks for 8,192 tokens).
    expect((sessionCalls[0]!.body as { max_tokens: number }).max_tokens).toBeLessThan(2_000)
    // The first answer's tool ran; the second call, which would have written two.txt, never reached the model.
    expect(existsSync(join(t.project.path, 'src/one.txt'))).toBe(true)
    expect(existsSync(join(t.project.path, 'src/two.txt'))).toBe(false)
    // Within the cap: Ralph's parse and the one bounded call, at Claude Code's own reported cost.
    const spent = failed.receipt!.costUsd
    expect(spent).toBeGreaterThan(0.02)
    expect(spent).toBeLessThanOrEqual(0.05)
    expect(failed.message).toContain(`(${formatUsd(spent)} spent)`)
    expect(await snapshotTags(t.project.path, t.env)).toContain('task-1-pre')
  })
})
