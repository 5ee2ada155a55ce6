import { describe, expect, it } from 'vitest'
import {
  decide,
  gateFeedback,
  initialCounters,
  PLAN_PHASE_COMPLETE_FEEDBACK,
  type LoopPolicy,
} from './decide'
import type { GateResult } from './gates'
import type { PlanCheck } from './phaseGate'

const policy: LoopPolicy = { maxGateFailures: 3, stallThreshold: 3, noProgressIterations: 5 }
const pass: GateResult = { gate: 'has-summary', severity: 'pass', message: 'summary.md is written.' }
const fail: GateResult = { gate: 'changes-made', severity: 'failure', message: 'Nothing changed.' }
const warn: GateResult = { gate: 'plan-diff', severity: 'warning', message: 'Section A: extra file.' }
/** The model signalled completion in PLAN with a plan written, which the iteration top judged `planCheck`. */
const signalledInPlan = (planCheck: PlanCheck) =>
  decide(
    initialCounters,
    { kind: 'completion-signalled', phase: 'plan', planHasContent: true, planCheck },
    policy,
  )

describe('decide: the phase guard when the model signals completion', () => {
  it('runs the gates in BUILD, and in PLAN when there is no plan', () => {
    const planCheck = { kind: 'already-build' } as const
    for (const facts of [
      { phase: 'build' as const, planHasContent: true },
      { phase: 'plan' as const, planHasContent: false },
    ]) {
      const d = decide(initialCounters, { kind: 'completion-signalled', ...facts, planCheck }, policy)
      expect(d.actions).toEqual([{ type: 'run-gates' }])
      expect(d.counters).toBe(initialCounters)
    }
  })

  it('swallows the signal in PLAN with a plan: status back to running, and says why', () => {
    const d = signalledInPlan({ kind: 'invalid', feedback: 'x' })
    expect(d.actions).toEqual([
      { type: 'set-status', status: 'running' },
      { type: 'write-feedback', text: PLAN_PHASE_COMPLETE_FEEDBACK },
    ])
    // An untouched plan gets the "plan first" feedback the iteration top wrote.
    const unchanged = signalledInPlan({ kind: 'unchanged', feedback: '# Plan first\n' })
    expect(unchanged.actions[1]).toEqual({ type: 'write-feedback', text: '# Plan first\n' })
  })
})

describe('decide: gate attempts', () => {
  it('succeeds when nothing failed (warnings do not block)', () => {
    const d = decide(initialCounters, { kind: 'gates-ran', results: [pass, warn] }, policy)
    expect(d.actions).toEqual([{ type: 'succeed' }])
  })

  it('counts failures, feeds them back with "attempt n of m", and fails on the last attempt', () => {
    let counters = initialCounters
    const seen: string[][] = []
    for (let n = 1; n <= 3; n++) {
      const d = decide(counters, { kind: 'gates-ran', results: [pass, fail, warn] }, policy)
      counters = d.counters
      expect(counters.gateFailures).toBe(n)
      seen.push(d.actions.map((a) => a.type))
      const feedback = d.actions.find((a) => a.type === 'write-feedback')
      expect(feedback).toMatchObject({ text: expect.stringContaining(`Attempt ${n} of 3`) })
    }
    expect(seen).toEqual([
      ['write-feedback', 'set-status'],
      ['write-feedback', 'set-status'],
      ['write-feedback', 'set-status', 'fail'],
    ])
    const last = decide({ gateFailures: 2, recoveries: 0 }, { kind: 'gates-ran', results: [fail] }, policy)
    expect(last.actions.at(-1)).toEqual({
      type: 'fail',
      reason: 'gates',
      message: 'Quality gates failed 3 times in a row; last: [changes-made] Nothing changed.',
    })
  })

  it('writes every failure and warning into the feedback', () => {
    const text = gateFeedback([fail, warn, pass], 2, 3)
    expect(text).toContain('FAIL [changes-made]: Nothing changed.')
    expect(text).toContain('WARN [plan-diff]: Section A: extra file.')
    expect(text).not.toContain('has-summary')
  })
})

describe('decide: stalls', () => {
  it('does nothing while the iteration made progress', () => {
    expect(decide(initialCounters, { kind: 'stall-checked', verdict: 'ok' }, policy).actions).toEqual([])
  })

  it('recovers the first stall and rolls back on the second, naming why', () => {
    const first = decide(initialCounters, { kind: 'stall-checked', verdict: 'repeat' }, policy)
    expect(first.actions).toEqual([
      {
        type: 'recover-stall',
        kind: 'repeat',
        recovery: 1,
        why: 'the last 3 iterations made exactly the same tool calls',
      },
    ])
    const second = decide(first.counters, { kind: 'stall-checked', verdict: 'no-progress' }, policy)
    expect(second.actions).toEqual([
      {
        type: 'rollback-stall',
        kind: 'no-progress',
        recovery: 2,
        why: 'no file changed in the last 5 iterations',
      },
    ])
  })

  it('keeps gate failures and stall recoveries apart', () => {
    const gated = decide(initialCounters, { kind: 'gates-ran', results: [fail] }, policy)
    const stalled = decide(gated.counters, { kind: 'stall-checked', verdict: 'repeat' }, policy)
    expect(stalled.counters).toEqual({ gateFailures: 1, recoveries: 1 })
  })
})

describe('decide: the iteration limit', () => {
  it('marks the task failed with max-iterations', () => {
    expect(
      decide(initialCounters, { kind: 'iterations-exhausted', maxIterations: 7 }, policy).actions,
    ).toEqual([
      { type: 'set-status', status: 'failed' },
      { type: 'fail', reason: 'max-iterations', message: 'The task did not complete within 7 iterations.' },
    ])
  })
})
