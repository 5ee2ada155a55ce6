import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { LoopEvent } from '../../../src/shared/loopEvents'
import { SnapshotEngine } from '../../../src/main/snapshots'
import { initRalphDir } from '../../../src/main/workspace/initRalphDir'
import { loopFixture, parsed, tools } from './harness'
import { memoryLogger } from '../../../src/main/workspace/logFile'

type Event<T extends LoopEvent['type']> = Extract<LoopEvent, { type: T }>
// The retry policy waits up to 1 s for a Retry-After; anything longer is a usage limit. The waits are real.
const shortCap = { retry: { maxRetryAfterMs: 1_000 } }

function waitFor(check: () => boolean, timeoutMs = 20_000): Promise<void> {
  const started = Date.now()
  return new Promise((resolve, reject) => {
    const timer = setInterval(() => {
      if (check()) {
        clearInterval(timer)
        resolve()
      } else if (Date.now() - started > timeoutMs) {
        clearInterval(timer)
        reject(new Error('condition not met in time'))
      }
    }, 10)
  })
}

describe('usage limits (429 with a long reset)', { timeout: 60_000 }, () => {
  const t = loopFixture()

  it('waits for a 5-second reset and resumes the same iteration with the same request', async () => {
    t.llm.enqueue(
      parsed({ type: 'bugfix' }),
      tools(['write_file', { path: 'a.txt', content: 'a' }]),
      {
        kind: 'error',
        status: 429,
        headers: { 'retry-after': '5' },
        body: { error: { message: 'Usage limit' } },
      },
      tools(['mark_complete', { summary: 'Wrote a.txt, then finished after the limit reset.' }]),
    )
    const started = Date.now()
    const result = await t.h.run('write a.txt', { extra: shortCap })
    expect(result.status).toBe('complete')
    expect(result.iterations).toBe(1)

    const waiting = t.h.events.find((e) => e.type === 'limit.waiting') as Event<'limit.waiting'>
    const resumed = t.h.events.find((e) => e.type === 'limit.resumed') as Event<'limit.resumed'>
    expect(waiting).toMatchObject({ iteration: 1, waitMs: 5_000 })
    const resetAt = Date.parse(waiting.resetAt)
    expect(resetAt).toBeGreaterThanOrEqual(started + 5_000)
    expect(resetAt).toBeLessThan(Date.now())
    expect(resumed.waitedMs).toBeGreaterThanOrEqual(4_900)
    // No ordinary retries were spent on it, and the request after the wait is the one the limit refused.
    expect(t.h.types()).not.toContain('llm.retry')
    const [, , refused, repeated] = t.h.chatRequests()
    expect(repeated!.messages).toEqual(refused!.messages)

    const done = t.h.events.at(-1) as Event<'task.completed'>
    expect(done.receipt).toMatchObject({ limitWaits: 1, iterations: 1 })
    expect(done.receipt!.limitWaitMs).toBeGreaterThanOrEqual(4_900)
    const waits = t.h.db.prepare('SELECT outcome, ended_at IS NOT NULL AS ended FROM limit_waits').all()
    expect(waits).toEqual([{ outcome: 'resumed', ended: 1 }])
  })

  it('waits for a 2-hour reset until stopped, losing nothing', async () => {
    t.h.write({ 'keep.txt': 'original' })
    t.llm.enqueue(
      parsed({ type: 'bugfix' }),
      tools(['write_file', { path: 'keep.txt', content: 'changed before the limit' }]),
      { kind: 'error', status: 429, headers: { 'retry-after': '7200' } },
    )
    const controller = new AbortController()
    const running = t.h.run('change keep.txt', { signal: controller.signal })
    await waitFor(() => t.h.types().includes('limit.waiting'))
    const waiting = t.h.events.find((e) => e.type === 'limit.waiting') as Event<'limit.waiting'>
    expect(Date.parse(waiting.resetAt) - Date.now()).toBeGreaterThan(7_100_000)
    // The run is waiting (an open wait in the store), not failed.
    const runId = (t.h.db.prepare('SELECT id FROM runs').get() as { id: number }).id
    expect(t.h.runs.openLimitWait(runId)).not.toBeNull()
    expect(readFileSync(join(t.h.dir, '.ralph/status.txt'), 'utf8').trim()).toBe('running')

    const stoppedAt = Date.now()
    controller.abort()
    const result = await running
    expect(Date.now() - stoppedAt).toBeLessThan(3_000)
    expect(result).toMatchObject({ status: 'stopped' })
    const failed = t.h.events.at(-1) as Event<'task.failed'>
    expect(failed).toMatchObject({ reason: 'stopped' })
    expect(failed.receipt).toMatchObject({ limitWaits: 1, calls: 2 })
    // Nothing lost: the work so far, the pre-task snapshot, the recorded usage and the closed wait.
    expect(readFileSync(join(t.h.dir, 'keep.txt'), 'utf8')).toBe('changed before the limit')
    const engine = new SnapshotEngine({ projectDir: t.h.dir, logger: memoryLogger() })
    expect((await engine.show('task-1-pre', 'keep.txt')).content.toString()).toBe('original')
    expect(t.h.runs.openLimitWait(runId)).toBeNull()
    expect(t.h.db.prepare('SELECT outcome FROM limit_waits').all()).toEqual([{ outcome: 'cancelled' }])
    expect(t.h.runs.savedReceipt(runId)).toEqual(failed.receipt)
  })

  it('fails at once with a clear message when waiting is off', async () => {
    t.llm.enqueue(parsed({ type: 'bugfix' }), {
      kind: 'error',
      status: 429,
      headers: { 'retry-after': '7200' },
      body: { error: { message: 'You have hit your usage limit.' } },
    })
    const started = Date.now()
    const result = await t.h.run('anything', { extra: { waitForLimits: false } })
    expect(Date.now() - started).toBeLessThan(10_000)
    expect(result).toMatchObject({ status: 'failed', reason: 'usage-limit' })
    expect(result.message).toContain('--no-wait')
    expect(result.message).toContain('You have hit your usage limit.')
    expect(t.h.types()).not.toContain('limit.waiting')
    expect(existsSync(join(t.h.dir, '.ralph/status.txt'))).toBe(true)
  })

  it('does not wait past the budget in .ralph/config.json (limitWaitMaxMinutes)', async () => {
    await initRalphDir(t.h.dir, { openedFrom: 'test' })
    const configFile = join(t.h.dir, '.ralph/config.json')
    writeFileSync(
      configFile,
      JSON.stringify({ ...JSON.parse(readFileSync(configFile, 'utf8')), limitWaitMaxMinutes: 60 }),
    )
    t.llm.enqueue(parsed({ type: 'bugfix' }), {
      kind: 'error',
      status: 429,
      headers: { 'retry-after': '7200' },
    })
    const result = await t.h.run('anything')
    expect(result).toMatchObject({ status: 'failed', reason: 'usage-limit' })
    expect(result.message).toMatch(/longer than the 1 h 00 min a task may wait \("limitWaitMaxMinutes"/)
    expect(t.h.types()).not.toContain('limit.waiting')
  })
})
