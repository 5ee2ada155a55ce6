import { beforeEach, describe, expect, it } from 'vitest'
import type { LoopEvent } from '../../shared/loopEvents'
import { RunsRepo } from '../store/runsRepo'
import { useTempDatabase } from '../store/testkit'
import { CostCapReached, TokenCapReached } from './costCap'
import { LoopRecorder } from './recorder'
import { TaskCaps } from './taskCaps'

const call = (costUsd: number, tokens = 0) => ({
  iteration: 1,
  purpose: 'iteration' as const,
  provider: 'openai',
  model: 'gpt-test',
  inputTokens: tokens,
  outputTokens: 0,
  durationMs: 1,
  costUsd,
})

describe('TaskCaps: the spend so far against the task caps', () => {
  const store = useTempDatabase('ralph-caps-')
  let events: LoopEvent[]
  let rec: LoopRecorder
  let runs: RunsRepo
  beforeEach(() => {
    events = []
    runs = new RunsRepo(store.db)
    rec = new LoopRecorder(runs, (e) => events.push(e))
    rec.runStarted({ projectId: null, projectPath: '/p', task: 2, message: 'do it' })
  })

  it('warns once at 75%, stops at the cap, and aborts its signal so the iteration stops too', () => {
    const caps = new TaskCaps({ maxCostUsd: 1, rec, runs })
    const task = new AbortController()
    const signal = caps.signal(task.signal)
    caps.record()
    expect(store.db.prepare('SELECT cost_cap_usd FROM runs WHERE id = ?').get(rec.runId)).toEqual({
      cost_cap_usd: 1,
    })
    rec.usage(call(0.8))
    caps.check(1)
    caps.check(1)
    expect(events.filter((e) => e.type === 'budget.warning')).toHaveLength(1)
    expect(signal.aborted).toBe(false)
    rec.usage(call(0.3))
    expect(() => caps.check(1)).toThrow(CostCapReached)
    expect(signal.aborted).toBe(true)
    expect(task.signal.aborted).toBe(false)
  })

  it("counts an engine's calls billed later until their session's total is recorded", () => {
    const caps = new TaskCaps({ maxCostUsd: 1, rec, runs })
    const engineCap = caps.costCapForEngine()
    caps.estimate('1:s', 0.5)
    caps.estimate('1:s', 0.2)
    expect(engineCap?.spentUsd()).toBeCloseTo(0.7)
    rec.usage(call(0.4))
    caps.settled('1:s')
    expect(engineCap?.spentUsd()).toBeCloseTo(0.4)
  })

  it('bounds the next answer by the tokens left and refuses a prompt that alone passes the cap', () => {
    const caps = new TaskCaps({ maxTokens: 1000, rec, runs })
    rec.usage(call(0, 600))
    const model = { provider: 'openai', model: 'gpt-test' } as Parameters<TaskCaps['bound']>[0]
    expect(caps.bound(model, 100)).toBe(300)
    expect(() => caps.bound(model, 500)).toThrow(TokenCapReached)
  })

  it('without caps changes nothing: the same signal, no fields, no bound', () => {
    const caps = new TaskCaps({ rec, runs })
    const signal = new AbortController().signal
    expect(caps.capped).toBe(false)
    expect(caps.signal(signal)).toBe(signal)
    expect(caps.fields()).toEqual({})
    expect(caps.costCapForEngine()).toBeNull()
    expect(caps.bound({ provider: 'openai', model: 'x' } as Parameters<TaskCaps['bound']>[0], 10)).toBeNull()
  })
})
