import { describe, expect, it } from 'vitest'
import { emptyQueue } from './planFile'
import { spec, stateOf, task } from './testkit'
import { nextAction, queueView, stageOf } from './view'

describe('stage (seed 001 "Stage Logic")', () => {
  it('PLAN without a file or without a spec', () => {
    expect(stageOf(emptyQueue())).toBe('PLAN')
    expect(stageOf(stateOf(task('t-a')))).toBe('PLAN')
  })
  it('BUILD while a task is pending, even with done tasks and issues', () => {
    expect(
      stageOf(
        stateOf(spec(), task('t-a', { s: 'd', done_at: 'x' }), task('t-b'), {
          t: 'issue',
          id: 'i-1',
          spec: 'a.md',
          desc: 'd',
        }),
      ),
    ).toBe('BUILD')
  })
  it('VERIFY with done tasks only', () => {
    expect(stageOf(stateOf(spec(), task('t-a', { s: 'd', done_at: 'x' })))).toBe('VERIFY')
  })
  it('INVESTIGATE with issues only, COMPLETE when empty', () => {
    expect(stageOf(stateOf(spec(), { t: 'issue', id: 'i-1', spec: 'a.md', desc: 'd' }))).toBe('INVESTIGATE')
    expect(stageOf(stateOf(spec()))).toBe('COMPLETE')
    expect(stageOf(stateOf(spec(), { t: 'reject', id: 't-a', done_at: 'x', reason: 'r' }))).toBe('COMPLETE')
  })
})

describe('next', () => {
  it('takes dependency order first, then priority (inherited from waiting tasks), then file order', () => {
    const state = stateOf(
      spec(),
      task('t-low', { priority: 'low' }),
      task('t-hi', { priority: 'high', deps: ['t-base'] }),
      task('t-med'),
      task('t-base', { priority: 'low' }),
      task('t-top', { priority: 'high' }),
    )
    // t-base is low but t-hi (high) waits for it, so it goes before medium work.
    expect(queueView(state).order).toEqual(['t-top', 't-base', 't-hi', 't-med', 't-low'])
    expect(nextAction(state)).toMatchObject({ action: 'build', task: { id: 't-top' } })
  })

  it('orders many ready tasks by priority, then file order', () => {
    const prios = ['low', 'high', 'medium'] as const
    const tasks = Array.from({ length: 60 }, (_, i) => task(`t-${i}`, { priority: prios[(i * 7) % 3] }))
    const expected = tasks
      .map((t, i) => ({ id: t.id, rank: ['high', 'medium', 'low'].indexOf(t.priority!), i }))
      .sort((a, b) => a.rank - b.rank || a.i - b.i)
      .map((t) => t.id)
    expect(queueView(stateOf(spec(), ...tasks)).order).toEqual(expected)
  })

  it('treats a dependency that is done or gone (accepted) as met', () => {
    const state = stateOf(
      spec(),
      task('t-b', { deps: ['t-a', 't-gone'] }),
      task('t-a', { s: 'd', done_at: 'x' }),
    )
    expect(nextAction(state)).toMatchObject({ action: 'build', task: { id: 't-b', blockedBy: [] } })
  })

  it('reports a dependency cycle as blocked instead of picking a task', () => {
    const state = stateOf(spec(), task('t-a', { deps: ['t-b'] }), task('t-b', { deps: ['t-a'] }))
    const next = nextAction(state)
    expect(next).toMatchObject({ action: 'blocked', reason: expect.stringMatching(/cycle/) })
    expect(queueView(state).warnings.some((w) => /t-a, t-b can never start/.test(w.message))).toBe(true)
  })

  it('names the item for every other stage', () => {
    expect(nextAction(emptyQueue())).toMatchObject({ action: 'plan', stage: 'PLAN' })
    expect(nextAction(stateOf(spec(), task('t-a', { s: 'd', done_at: 'x' })))).toMatchObject({
      action: 'verify',
      task: { id: 't-a' },
    })
    expect(nextAction(stateOf(spec(), { t: 'issue', id: 'i-1', spec: 'a.md', desc: 'd' }))).toMatchObject({
      action: 'investigate',
      issue: { id: 'i-1' },
    })
    expect(nextAction(stateOf(spec()))).toEqual({ action: 'none', stage: 'COMPLETE' })
  })
})
