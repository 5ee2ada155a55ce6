import { describe, expect, it } from 'vitest'
import {
  decideAttempt,
  freshAttempts,
  type AttemptOutcome,
  type AttemptPolicy,
  type TaskAttempts,
} from './decide'
import { checkBudget } from '../../shared/budget'

const hybrid: AttemptPolicy = { maxFailures: 3, mode: 'hybrid' }
const fail: AttemptOutcome = {
  kind: 'verified',
  outcome: 'FAIL',
  reason: 'AC1: `node check.js` exited with 1',
  feedback: '# Verification failed\n\n- FAIL AC1\n',
}
const types = (d: { actions: { type: string }[] }) => d.actions.map((a) => a.type)

describe('decideAttempt: verification outcomes', () => {
  it('accepts a PASS and goes on (yolo and hybrid)', () => {
    for (const mode of ['yolo', 'hybrid'] as const) {
      const d = decideAttempt(
        't-1',
        freshAttempts(),
        { kind: 'verified', outcome: 'PASS' },
        { ...hybrid, mode },
      )
      expect(types(d)).toEqual(['accept', 'next'])
    }
  })

  it('asks for approval after a PASS in interactive mode, the task done but not accepted', () => {
    const d = decideAttempt(
      't-1',
      freshAttempts(),
      { kind: 'verified', outcome: 'PASS' },
      { ...hybrid, mode: 'interactive' },
    )
    expect(types(d)).toEqual(['mark-done', 'ask-approval'])
  })

  it('rejects a FAIL with its reason and retries with the feedback, twice', () => {
    let attempts: TaskAttempts = freshAttempts()
    for (const n of [1, 2]) {
      const d = decideAttempt('t-1', attempts, fail, hybrid)
      attempts = d.attempts
      expect(attempts.failures).toBe(n)
      expect(d.actions).toEqual([
        { type: 'reject', reason: 'AC1: `node check.js` exited with 1' },
        { type: 'retry', feedback: '# Verification failed\n\n- FAIL AC1\n' },
      ])
    }
  })

  it('rolls back and escalates on the third failure (counting failures from earlier builds)', () => {
    const d = decideAttempt('t-1', freshAttempts(2), fail, hybrid)
    expect(types(d)).toEqual(['reject', 'rollback', 'escalate', 'notify', 'pause'])
    // The escalation outlives the build (the rollback restored plan.jsonl): it says how to clear it.
    expect(d.actions[2]).toMatchObject({
      kind: 'failures',
      failures: 3,
      message: expect.stringContaining('ralph build --retry t-1'),
    })
    expect(d.actions[3]).toMatchObject({
      event: 'escalation',
      message: expect.stringContaining('failed 3 times'),
    })
    // It tells a person why the last attempt failed, not the retry prompt written for a next attempt.
    const message = (d.actions[2] as { message: string }).message
    expect(message).toContain('The last attempt failed: AC1: `node check.js` exited with 1')
    expect(message).not.toContain('# Verification failed')
    expect(d.actions[4]).toMatchObject({ status: 'escalated' })
  })

  it('pauses on NEEDS_HUMAN in every mode, leaving the task done for a person', () => {
    for (const mode of ['yolo', 'hybrid', 'interactive'] as const) {
      const d = decideAttempt(
        't-9',
        freshAttempts(),
        { kind: 'verified', outcome: 'NEEDS_HUMAN', feedback: 'AC2 undecided' },
        { ...hybrid, mode },
      )
      expect(types(d)).toEqual(['mark-done', 'notify', 'pause'])
      expect(d.actions[2]).toMatchObject({
        status: 'paused',
        message: expect.stringContaining('ralph task accept t-9'),
      })
    }
  })
})

describe('decideAttempt: lifecycle failures', () => {
  it('retries a task that did not complete (gates, iterations) without a tombstone', () => {
    const d = decideAttempt(
      't-1',
      freshAttempts(),
      { kind: 'task-failed', reason: 'gates', message: 'Quality gates failed 3 times' },
      hybrid,
    )
    expect(types(d)).toEqual(['retry'])
    expect(d.attempts.failures).toBe(1)
    expect(d.actions[0]).toMatchObject({ feedback: expect.stringContaining('Quality gates failed 3 times') })
  })

  it('re-plans a stuck task once from scratch (failures reset), then escalates', () => {
    const first = decideAttempt(
      't-1',
      { failures: 2, attempts: 3, replanned: false },
      { kind: 'task-failed', reason: 'stall', message: 'same tool calls' },
      hybrid,
    )
    expect(types(first)).toEqual(['replan'])
    expect(first.attempts).toEqual({ failures: 0, attempts: 3, replanned: true })
    const second = decideAttempt(
      't-1',
      first.attempts,
      { kind: 'task-failed', reason: 'no-progress', message: 'no file changed' },
      hybrid,
    )
    expect(types(second)).toEqual(['rollback', 'escalate', 'notify', 'pause'])
    expect(second.actions[1]).toMatchObject({
      kind: 'stuck',
      message: expect.stringContaining('--retry t-1'),
    })
    expect(second.actions[3]).toMatchObject({ status: 'escalated' })
  })

  it('stops the build on a provider error, a usage limit, an internal error or Ctrl+C', () => {
    for (const reason of ['provider', 'usage-limit', 'error'] as const) {
      const d = decideAttempt('t-1', freshAttempts(), { kind: 'task-failed', reason, message: 'x' }, hybrid)
      expect(d.actions).toEqual([{ type: 'stop', status: 'failed', message: 'x' }])
    }
    const stopped = decideAttempt(
      't-1',
      freshAttempts(),
      { kind: 'task-failed', reason: 'stopped', message: 'Stopped by the user.' },
      hybrid,
    )
    expect(stopped.actions).toEqual([{ type: 'stop', status: 'stopped', message: 'Stopped by the user.' }])
  })

  it('pauses for a task the parser cannot understand', () => {
    const d = decideAttempt(
      't-1',
      freshAttempts(),
      { kind: 'needs-clarification', question: 'Which page?' },
      hybrid,
    )
    expect(types(d)).toEqual(['notify', 'pause'])
    expect(d.actions[1]).toMatchObject({ message: expect.stringContaining('Which page?') })
  })
})

describe('checkBudget', () => {
  it('warns once at 75% and stops at 100%', () => {
    const budget = { maxCostUsd: 1, maxMinutes: 10 }
    expect(checkBudget(budget, { costUsd: 0.5, elapsedMs: 60_000 }, new Set())).toEqual({
      warn: [],
      stop: null,
    })
    const at80 = checkBudget(budget, { costUsd: 0.8, elapsedMs: 60_000 }, new Set())
    expect(at80.warn).toEqual([{ kind: 'cost', used: 0.8, limit: 1 }])
    expect(at80.stop).toBeNull()
    expect(checkBudget(budget, { costUsd: 0.9, elapsedMs: 60_000 }, new Set(['cost'])).warn).toEqual([])
    const over = checkBudget(budget, { costUsd: 0.9, elapsedMs: 10 * 60_000 }, new Set(['cost']))
    expect(over.stop).toEqual({ kind: 'time', used: 10, limit: 10 })
  })

  it('has nothing to say without budgets', () => {
    expect(checkBudget({}, { costUsd: 1e6, elapsedMs: 1e9 }, new Set())).toEqual({ warn: [], stop: null })
  })
})
