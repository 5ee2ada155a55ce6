import { describe, expect, it } from 'vitest'
import type { BuildEvent } from './events'
import { BuildSpend, judgedCost } from './spend'

// Only the fields BuildSpend reads: the events' other fields do not change the arithmetic.
const ev = (event: Partial<BuildEvent> & { type: BuildEvent['type'] }) => event as BuildEvent
/** A judged criterion's event: what it cost. */
const judged = (costUsd: number) => ev({ type: 'verify.criterion', verdict: { costUsd } } as never)
const started = ev({
  type: 'build.started',
  mode: 'yolo',
  order: ['t-1'],
  budget: { maxCostUsd: 2, maxMinutes: 10 },
})

describe('BuildSpend', () => {
  it('has no status before the build starts', () => {
    const spend = new BuildSpend(() => 1)
    spend.apply(ev({ type: 'task.started', task: 1 }))
    expect(spend.status()).toBeUndefined()
  })

  it('adds closed attempts and verifications to the open attempt’s cost so far', () => {
    const costs = new Map([
      [1, 0.5],
      [2, 0.25],
    ])
    const spend = new BuildSpend((task) => costs.get(task) ?? 0)
    spend.apply(started)
    expect(spend.status()).toEqual({ maxCostUsd: 2, maxMinutes: 10, spentUsd: 0, alerts: [] })
    spend.apply(ev({ type: 'task.started', task: 1 }))
    expect(spend.status()?.spentUsd).toBe(0.5)
    spend.apply(ev({ type: 'task.completed', task: 1 }))
    spend.apply(judged(0.125))
    spend.apply(ev({ type: 'verify.completed', costUsd: 0.125 }))
    expect(spend.status()?.spentUsd).toBe(0.625)
    spend.apply(ev({ type: 'task.started', task: 2 }))
    costs.set(2, 0.375)
    expect(spend.status()?.spentUsd).toBe(1)
    spend.apply(ev({ type: 'task.failed', task: 2 }))
    expect(spend.status()?.spentUsd).toBe(1)
  })

  it('sums every open attempt of a parallel build, each lane’s until it closes', () => {
    const costs = new Map([
      [1, 0.5],
      [2, 0.25],
      [3, 0.125],
    ])
    const spend = new BuildSpend((task) => costs.get(task) ?? 0)
    spend.apply(started)
    // Three lanes start their tasks before any ends: all three count at once.
    for (const task of [1, 2, 3]) spend.apply(ev({ type: 'task.started', task }))
    expect(spend.status()?.spentUsd).toBe(0.875)
    costs.set(2, 0.5)
    expect(spend.status()?.spentUsd).toBe(1.125)
    // Lane 2 ends (closed at what it cost then), its verification is added; the other two stay open.
    spend.apply(ev({ type: 'task.completed', task: 2 }))
    spend.apply(judged(0.0625))
    spend.apply(ev({ type: 'verify.completed', costUsd: 0.0625 }))
    expect(spend.status()?.spentUsd).toBe(1.1875)
    spend.apply(ev({ type: 'task.failed', task: 1 }))
    spend.apply(ev({ type: 'task.started', task: 4 }))
    costs.set(4, 1)
    expect(spend.status()?.spentUsd).toBe(2.1875)
    spend.apply(ev({ type: 'build.finished', status: 'stopped', costUsd: 2.25 }))
    costs.set(3, 9)
    expect(spend.status()?.spentUsd).toBe(2.25)
  })

  it('counts a verification cancelled midway: the criteria judged before Stop or a stale merge were paid for', () => {
    const spend = new BuildSpend(() => 0)
    spend.apply(started)
    // A merged-tree verification: one criterion judged, then cancelled (no verify.completed ever comes).
    spend.apply(ev({ type: 'verify.started' }))
    spend.apply(judged(0.25))
    expect(spend.status()?.spentUsd).toBe(0.25)
    // Its rerun on the new chain completes: both count, the completed one once.
    spend.apply(ev({ type: 'verify.started' }))
    spend.apply(judged(0.125))
    spend.apply(judged(0.125))
    spend.apply(ev({ type: 'verify.completed', costUsd: 0.25 }))
    expect(spend.status()?.spentUsd).toBe(0.5)
  })

  it('judgedCost sums what one verification has judged so far, whatever else it sees', () => {
    const cost = judgedCost()
    expect(cost.usd()).toBe(0)
    cost.see(judged(0.1))
    cost.see(ev({ type: 'verify.completed', costUsd: 9 }))
    cost.see(ev({ type: 'task.completed', task: 1 }))
    cost.see(judged(0.2))
    expect(cost.usd()).toBe(0.3)
  })

  it('keeps the latest alert of each kind, and the final cost once the build has finished', () => {
    const spend = new BuildSpend(() => 0.5)
    spend.apply(started)
    const alert = (level: 'warn' | 'stop', kind: 'cost' | 'time', used: number) =>
      ev({ type: 'build.budget', level, kind, used, limit: 2, message: `${kind} ${level}` })
    spend.apply(alert('warn', 'cost', 1.6))
    spend.apply(alert('warn', 'time', 8))
    spend.apply(alert('stop', 'cost', 2.1))
    spend.apply(ev({ type: 'build.finished', status: 'budget', costUsd: 2.1 }))
    expect(spend.status()).toEqual({
      maxCostUsd: 2,
      maxMinutes: 10,
      spentUsd: 2.1,
      alerts: [
        { level: 'warn', kind: 'time', used: 8, limit: 2, message: 'time warn' },
        { level: 'stop', kind: 'cost', used: 2.1, limit: 2, message: 'cost stop' },
      ],
    })
  })
})
