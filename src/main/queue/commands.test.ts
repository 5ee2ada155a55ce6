import { describe, expect, it } from 'vitest'
import { isAppError } from '../../shared/errors'
import { TASK_ID_PATTERN } from '../../shared/queue'
import { applyCommand, type QueueCommand } from './commands'
import { emptyQueue, serializePlan, type QueueState } from './planFile'
import { counter, spec, stateOf, task } from './testkit'
import { queueView } from './view'

const apply = (state: QueueState, cmd: QueueCommand) => applyCommand(state, cmd, { random: counter() })
const view = (state: QueueState) => queueView(state)

function fails(fn: () => unknown, kind: string, message: RegExp): void {
  try {
    fn()
  } catch (err) {
    expect(isAppError(err), String(err)).toBe(true)
    expect((err as { kind: string }).kind).toBe(kind)
    expect((err as Error).message).toMatch(message)
    return
  }
  throw new Error('expected an error')
}

describe('task add', () => {
  it('appends a pending task with a random t-xxxx id, the current spec and its criteria as an array', () => {
    const out = applyCommand(stateOf(spec(), task('t-aaaa')), {
      op: 'task-add',
      input: {
        name: ' Add tests ',
        accept: ['DET: npm test', 'LLM: readable\nnaked'],
        deps: ['t-aaaa'],
        priority: 'high',
      },
    })
    const added = view(out.state).tasks[1]!
    expect(added.id).toMatch(TASK_ID_PATTERN)
    expect(out.ids).toEqual([added.id])
    expect(out.message).toBe(`task add ${added.id}: Add tests`)
    expect(added).toMatchObject({
      name: 'Add tests',
      spec: 'a.md',
      status: 'pending',
      priority: 'high',
      deps: ['t-aaaa'],
    })
    expect(added.accept.map((c) => `${c.ref} ${c.kind}`)).toEqual(['AC1 DET', 'AC2 LLM', 'AC3 LLM'])
    expect(out.warnings).toEqual([expect.stringMatching(/AC3 has no DET: or LLM: tag/)])
    expect(JSON.parse(serializePlan(out.state).split('\n')[2]!).accept).toEqual([
      'DET: npm test',
      'LLM: readable',
      'naked',
    ])
  })

  it('never reuses an id the file holds, tombstones included', () => {
    const taken = stateOf(spec(), task('t-0001'), { t: 'reject', id: 't-0002', done_at: 'x', reason: 'r' })
    const out = applyCommand(taken, { op: 'task-add', input: { name: 'n' } }, { random: counter() })
    expect(out.ids).toEqual(['t-0003'])
  })

  it('refuses unknown dependencies, a missing spec and an empty name, saying what to do', () => {
    fails(
      () => apply(stateOf(spec()), { op: 'task-add', input: { name: 'n', deps: ['t-nope'] } }),
      'not-found',
      /Unknown dependency t-nope.*ralph query tasks/,
    )
    fails(
      () => apply(emptyQueue(), { op: 'task-add', input: { name: 'n' } }),
      'invalid-input',
      /ralph set-spec FILE/,
    )
    fails(
      () => apply(stateOf(spec()), { op: 'task-add', input: { name: '  ' } }),
      'invalid-input',
      /needs a name/,
    )
    fails(
      () => apply(stateOf(spec()), { op: 'task-add', input: { name: 'n', spec: '../x.md' } }),
      'invalid-input',
      /outside the project/,
    )
  })

  it('takes --spec over the current spec, normalised', () => {
    const out = apply(stateOf(spec()), { op: 'task-add', input: { name: 'n', spec: './specs/b.md' } })
    expect(view(out.state).tasks[0]!.spec).toBe('specs/b.md')
  })
})

describe('task edit', () => {
  it('refuses deps that would close a cycle, naming it', () => {
    const state = stateOf(spec(), task('t-a'), task('t-b', { deps: ['t-a'] }), task('t-c', { deps: ['t-b'] }))
    fails(
      () => apply(state, { op: 'task-edit', input: { id: 't-a', deps: ['t-c'] } }),
      'invalid-input',
      /cycle \(t-a → t-c → t-b → t-a\)/,
    )
    fails(
      () => apply(state, { op: 'task-edit', input: { id: 't-a', deps: ['t-a'] } }),
      'invalid-input',
      /depend on itself/,
    )
    const ok = apply(state, { op: 'task-edit', input: { id: 't-c', deps: ['t-a'], priority: 'low' } })
    expect(view(ok.state).tasks[2]).toMatchObject({ deps: ['t-a'], priority: 'low' })
    expect(ok.message).toBe('task edit t-c: deps, priority')
  })
})

describe('task done', () => {
  it('marks the next task in build order done with its done_at', () => {
    const state = stateOf(spec(), task('t-b', { deps: ['t-a'], priority: 'high' }), task('t-a'))
    const out = apply(state, { op: 'task-done', doneAt: 'c0ffee' })
    expect(view(out.state).tasks.find((t) => t.id === 't-a')).toMatchObject({
      status: 'done',
      doneAt: 'c0ffee',
    })
    expect(out.message).toBe('task done t-a: task t-a')
  })

  it('refuses a blocked task, a done one and an empty queue', () => {
    const state = stateOf(
      spec(),
      task('t-a'),
      task('t-b', { deps: ['t-a'] }),
      task('t-d', { s: 'd', done_at: 'x' }),
    )
    fails(
      () => apply(state, { op: 'task-done', id: 't-b', doneAt: 'x' }),
      'invalid-input',
      /t-b is blocked by t-a/,
    )
    fails(() => apply(state, { op: 'task-done', id: 't-d', doneAt: 'x' }), 'invalid-input', /already done/)
    fails(() => apply(stateOf(spec()), { op: 'task-done', doneAt: 'x' }), 'invalid-input', /No pending task/)
    fails(() => apply(state, { op: 'task-done', id: 't-zz', doneAt: 'x' }), 'not-found', /no task t-zz/)
  })

  it('refuses to guess which of two tasks with one id is meant', () => {
    const state = stateOf(spec(), task('t-a'), task('t-a', { name: 'twin' }))
    fails(
      () => apply(state, { op: 'task-done', id: 't-a', doneAt: 'x' }),
      'invalid-input',
      /on 2 lines \(2, 3\)/,
    )
  })
})

describe('task accept and reject', () => {
  const state = stateOf(
    spec(),
    task('t-a', { s: 'd', done_at: 'd1' }),
    task('t-b'),
    task('t-c', { s: 'd', done_at: 'd2' }),
  )

  it('accept removes every done task, or only the named ones', () => {
    expect(view(apply(state, { op: 'task-accept' }).state).tasks.map((t) => t.id)).toEqual(['t-b'])
    const one = apply(state, { op: 'task-accept', ids: ['t-c'] })
    expect(view(one.state).tasks.map((t) => t.id)).toEqual(['t-a', 't-b'])
    expect(one.message).toBe('task accept t-c')
    fails(() => apply(state, { op: 'task-accept', ids: ['t-b'] }), 'invalid-input', /still pending/)
    fails(() => apply(stateOf(spec(), task('t-b')), { op: 'task-accept' }), 'invalid-input', /No done tasks/)
  })

  it('reject adds a tombstone with done_at and moves the first done task back to pending with its reason', () => {
    const out = apply(state, { op: 'task-reject', reason: 'Output format does not match spec' })
    const v = view(out.state)
    expect(v.tasks[0]).toMatchObject({
      id: 't-a',
      status: 'pending',
      reject: 'Output format does not match spec',
      doneAt: 'd1',
    })
    expect(v.tombstones).toEqual([
      { id: 't-a', doneAt: 'd1', reason: 'Output format does not match spec', line: null },
    ])
    expect(serializePlan(out.state).trim().split('\n').pop()).toBe(
      '{"t":"reject","id":"t-a","done_at":"d1","reason":"Output format does not match spec"}',
    )
    fails(() => apply(state, { op: 'task-reject', id: 't-b', reason: 'x' }), 'invalid-input', /not done/)
    fails(() => apply(state, { op: 'task-reject', reason: ' ' }), 'invalid-input', /Say why/)
  })
})

describe('task cancel', () => {
  it('refuses to cancel a task others wait for', () => {
    const state = stateOf(spec(), task('t-a'), task('t-b', { deps: ['t-a'] }))
    fails(() => apply(state, { op: 'task-cancel', id: 't-a' }), 'invalid-input', /dependency of t-b/)
    expect(view(apply(state, { op: 'task-cancel', id: 't-b' }).state).tasks.map((t) => t.id)).toEqual(['t-a'])
  })
})

describe('issues', () => {
  it('adds an issue with an i-xxxx id and closes the first one (or the named one)', () => {
    const added = applyCommand(
      stateOf(spec()),
      { op: 'issue-add', desc: 'Flaky test' },
      { random: counter() },
    )
    expect(view(added.state).issues).toEqual([{ id: 'i-0001', spec: 'a.md', desc: 'Flaky test', line: null }])
    const two = applyCommand(added.state, { op: 'issue-add', desc: 'Slow build' }, { random: () => 'zzzz' })
    expect(view(apply(two.state, { op: 'issue-done' }).state).issues.map((i) => i.id)).toEqual(['i-zzzz'])
    expect(view(apply(two.state, { op: 'issue-done', id: 'i-zzzz' }).state).issues.map((i) => i.id)).toEqual([
      'i-0001',
    ])
    fails(() => apply(stateOf(spec()), { op: 'issue-done' }), 'invalid-input', /no issues/)
    fails(() => apply(two.state, { op: 'issue-done', id: 'i-nope' }), 'not-found', /no issue i-nope/)
  })
})

describe('set-spec and plan-start', () => {
  it('set-spec puts the spec line first, replaces it, and keeps one', () => {
    const created = apply(emptyQueue(), { op: 'set-spec', spec: 'specs/a.md' })
    expect(serializePlan(created.state)).toBe('{"t":"spec","spec":"specs/a.md"}\n')
    const twoSpecs = stateOf(task('t-a'), spec('a.md'), spec('b.md'))
    const out = apply(twoSpecs, { op: 'set-spec', spec: 'c.md' })
    expect(view(out.state).spec).toBe('c.md')
    expect(serializePlan(out.state).match(/"t":"spec"/g)).toHaveLength(1)
    expect(
      serializePlan(apply(stateOf(task('t-a')), { op: 'set-spec', spec: 'a.md' }).state).split('\n')[0],
    ).toBe('{"t":"spec","spec":"a.md"}')
  })

  it('plan-start drops every task and tombstone, keeps issues and sets the spec', () => {
    const state = stateOf(
      spec('old.md'),
      task('t-a', { s: 'd', done_at: 'x' }),
      task('t-b'),
      { t: 'reject', id: 't-b', done_at: 'y', reason: 'r' },
      { t: 'issue', id: 'i-1', spec: 'old.md', desc: 'd' },
    )
    const out = apply(state, { op: 'plan-start', spec: 'new.md' })
    const v = view(out.state)
    expect(v).toMatchObject({ spec: 'new.md', tasks: [], tombstones: [] })
    expect(v.issues.map((i) => i.id)).toEqual(['i-1'])
    expect(out.message).toBe('plan new.md; cancelled t-a, t-b; cleared 1 tombstone')
  })
})
