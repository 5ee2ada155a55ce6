import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { LoopEvent } from '../../../src/shared/loopEvents'
import { runCli } from '../../helpers/cli'
import { useFakeLlmCli } from '../../helpers/fakeLlmCli'
import { parsed, tools, withUsage } from './harness'

// gpt-4o has a catalog price ($2.50 per 1M input tokens), so each scripted reply's usage has a known cost.
const costOf = (promptTokens: number) => (promptTokens * 2.5) / 1_000_000

describe('ralph run --max-cost (the CLI, as a child process)', { timeout: 120_000 }, () => {
  const t = useFakeLlmCli({ model: 'gpt-4o' })

  const chatRequests = () => t.llm.requests.filter((r) => r.path === '/v1/chat/completions').length

  it('warns at 75%, stops when the call that reaches the cap returns, exits 4, and keeps task-1-pre', async () => {
    writeFileSync(join(t.project.path, 'keep.txt'), 'before the task\n')
    const usage = (prompt_tokens: number) => ({ prompt_tokens, completion_tokens: 0 })
    t.llm.enqueue(
      withUsage(parsed({ type: 'bugfix', title: 'Write three files' }), usage(4_000)), // $0.01: 10%
      withUsage(tools(['write_file', { path: 'a.txt', content: 'a' }]), usage(20_000)), // $0.06: 60%
      withUsage(tools(['write_file', { path: 'b.txt', content: 'b' }]), usage(8_000)), // $0.08: 80%, warns
      withUsage(tools(['write_file', { path: 'c.txt', content: 'c' }]), usage(10_000)), // $0.105: stops
    )
    const result = await runCli(
      ['run', 'write three files', '--max-cost', '0.10', '--json', '--project', t.project.path],
      { env: t.env },
    )
    expect(result.stderr).toBe('')
    expect(result.code).toBe(4)
    const events = result.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as LoopEvent)

    // One warning, at the call that crossed 75%, before that answer's tool ran.
    const warnings = events.filter((e) => e.type === 'budget.warning')
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toMatchObject({ task: 1, iteration: 1, capUsd: 0.1 })
    expect(warnings[0]!.spentUsd).toBeCloseTo(costOf(32_000), 8)
    const written = events
      .filter((e) => e.type === 'tool.called')
      .map((e) => (e.args as { path: string }).path)
    expect(written).toEqual(['a.txt', 'b.txt'])
    expect(events.findIndex((e) => e.type === 'budget.warning')).toBeLessThan(
      events.findIndex((e) => e.type === 'tool.called' && (e.args as { path: string }).path === 'b.txt'),
    )
    expect(events.find((e) => e.type === 'iteration.started')).toMatchObject({ costCapUsd: 0.1 })

    // The stop: the fourth call was the last; its tool never ran, nothing was asked after it.
    const failed = events.at(-1) as Extract<LoopEvent, { type: 'task.failed' }>
    expect(failed).toMatchObject({ type: 'task.failed', reason: 'cost-cap', rolledBackTo: null })
    expect(failed.message).toContain('Stopped: cost cap of $0.10 reached ($0.105 spent).')
    expect(failed.message).toContain('task-1-pre is intact')
    expect(failed.receipt!.costUsd).toBeCloseTo(costOf(42_000), 8)
    expect(failed.receipt!.calls).toBe(4)
    // A fifth call would have been answered by the fallback reply and counted here.
    expect(chatRequests()).toBe(4)
    expect(existsSync(join(t.project.path, 'c.txt'))).toBe(false)
    // The work so far stays in the files, as with Stop.
    expect(readFileSync(join(t.project.path, 'b.txt'), 'utf8')).toBe('b')
    expect(readFileSync(join(t.project.path, '.ralph/status.txt'), 'utf8').trim()).toBe('failed')

    // No post-task snapshot; task-1-pre is the commit the task started from, and holds the files before it.
    const pre = events.find((e) => e.type === 'snapshot.created') as Extract<
      LoopEvent,
      { type: 'snapshot.created' }
    >
    expect(pre.tag).toBe('task-1-pre')
    expect(events.filter((e) => e.type === 'snapshot.created')).toHaveLength(1)
    const list = await runCli(['snapshot', 'list', '--json', '--project', t.project.path], { env: t.env })
    expect(list.code).toBe(0)
    const items = JSON.parse(list.stdout).items as { tag: string; commit: string }[]
    expect(items.map((s) => s.tag)).not.toContain('task-1-post')
    expect(items.find((s) => s.tag === 'task-1-pre')?.commit).toBe(pre.commit)
    const rollback = await runCli(['snapshot', 'rollback', 'task-1-pre', '--project', t.project.path], {
      env: t.env,
    })
    expect(rollback.code).toBe(0)
    expect(existsSync(join(t.project.path, 'a.txt'))).toBe(false)
    expect(readFileSync(join(t.project.path, 'keep.txt'), 'utf8')).toBe('before the task\n')
  })

  it('prints the warning and the stop for people, and refuses a cap written with a dollar sign', async () => {
    const usage = (prompt_tokens: number) => ({ prompt_tokens, completion_tokens: 0 })
    t.llm.enqueue(
      withUsage(parsed({ type: 'bugfix' }), usage(4_000)), // $0.01
      withUsage(tools(['write_file', { path: 'a.txt', content: 'a' }]), usage(34_000)), // $0.095: 79% of $0.12
      withUsage(tools(['write_file', { path: 'b.txt', content: 'b' }]), usage(20_000)), // $0.145: over
    )
    const capped = await runCli(['run', 'write a', '--max-cost', '$0.12', '--project', t.project.path], {
      env: t.env,
    })
    // "$0.12" is not a number: a usage error, and nothing ran.
    expect(capped.code).toBe(2)
    expect(chatRequests()).toBe(0)

    const human = await runCli(['run', 'write a', '--max-cost', '0.12', '--project', t.project.path], {
      env: t.env,
    })
    expect(human.code).toBe(4)
    expect(human.stdout).toContain('! Cost cap: $0.095 of $0.12 spent (75% reached)')
    expect(human.stdout).toContain('failed (cost-cap): Stopped: cost cap of $0.12 reached ($0.145 spent).')
    expect(readFileSync(join(t.project.path, 'a.txt'), 'utf8')).toBe('a')
    expect(existsSync(join(t.project.path, 'b.txt'))).toBe(false)
  })

  it('refuses a cap that is not a positive number with a usage error (exit 2)', async () => {
    for (const bad of ['0', '-1', 'abc', '']) {
      const r = await runCli(['run', 'fix', `--max-cost=${bad}`, '--project', t.project.path], { env: t.env })
      expect(r.code, bad).toBe(2)
      expect(r.stderr, bad).toContain('--max-cost')
      expect(r.stderr, bad).toContain('ralph run --help')
    }
    expect(chatRequests()).toBe(0)
  })
})
