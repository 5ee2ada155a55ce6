import { describe, expect, it } from 'vitest'
import {
  droppedChangeNote,
  largerCounter,
  planSidesFor,
  ralphActions,
  ralphRuleFor,
  RULED_PATHS,
  unionLines,
  type Entry,
  type Sides,
} from './ralphMergeRules'

const e = (oid: string, mode = '100644'): Entry => ({ mode, oid: oid.repeat(40).slice(0, 40) })
const sides = (base: Entry | null, ours: Entry | null, theirs: Entry | null): Sides<Entry> => ({
  base,
  ours,
  theirs,
})

describe('ralphRuleFor', () => {
  it('gives task state to the lane, the queue and config to the integration, and merges the rest', () => {
    for (const f of [
      'task.md',
      'status.txt',
      'summary.md',
      'feedback.md',
      'progress.md',
      'iteration.txt',
      'phase.txt',
    ])
      expect(ralphRuleFor(`.ralph/${f}`)).toBe('theirs')
    expect(ralphRuleFor('.ralph/task-history.md')).toBe('union')
    expect(ralphRuleFor('.ralph/task-counter.txt')).toBe('max')
    expect(ralphRuleFor('.ralph/plan.jsonl')).toBe('ours')
    expect(ralphRuleFor('.ralph/config.json')).toBe('ours')
    expect(ralphRuleFor('.ralph/plan.tsx')).toBe('plan')
    // Attachments, notifications, anything else in .ralph/, and project files: 3-way.
    for (const p of [
      '.ralph/attachments/a.png',
      '.ralph/origin.md',
      '.ralph/.gitignore',
      'task.md',
      'src/.ralph/task.md',
    ])
      expect(ralphRuleFor(p)).toBeNull()
    expect(RULED_PATHS).toHaveLength(12)
  })
})

describe('unionLines', () => {
  it("keeps ours' lines first, then theirs' new ones, never a line twice that both have", () => {
    const base = '- Task 1 (complete): a\n'
    const ours = `${base}- Task 2 (complete): b\n`
    const theirs = `${base}- Task 3 (complete): c\n`
    expect(unionLines(ours, theirs)).toBe(`${base}- Task 2 (complete): b\n- Task 3 (complete): c\n`)
    expect(unionLines(ours, ours)).toBe(ours)
    expect(unionLines('', theirs)).toBe(theirs)
    expect(unionLines('', '')).toBe('')
  })

  it('counts repeated lines and ends with a newline even when a side did not', () => {
    expect(unionLines('x\n\ny\n', 'x\n\n\ny\nz')).toBe('x\n\ny\n\nz\n')
    expect(unionLines('a', 'a\nb')).toBe('a\nb\n')
  })
})

describe('largerCounter', () => {
  it('takes the larger number, a side without one counts as nothing', () => {
    expect(largerCounter('4\n', '7\n')).toBe('7\n')
    expect(largerCounter('9\n', '7\n')).toBe('9\n')
    expect(largerCounter(null, '3')).toBe('3\n')
    expect(largerCounter('junk', '3\n')).toBe('3\n')
    expect(largerCounter('junk', null)).toBeNull()
    expect(largerCounter('99999999999999999999', '2')).toBe('2\n')
  })
})

describe('planSidesFor', () => {
  it("removes other tasks' markers from all three sides and keeps this task's", () => {
    const plan = (markers: string) =>
      `export default (\n  <App name="x">\n    <Section gumdrop="hero">\n${markers}    </Section>\n  </App>\n)\n`
    const texts = {
      base: plan('      {/* TASK-1 [ADD]: one */}\n'),
      ours: plan('      {/* TASK-2 [ADD]: two */}\n'),
      theirs: plan('      {/* TASK-3 [ADD]: three */}\n      {/* PRESERVED — the logo */}\n'),
    }
    const out = planSidesFor(texts, 3)
    expect(out.base).toBe(plan(''))
    expect(out.ours).toBe(plan(''))
    expect(out.theirs).toBe(texts.theirs)
    expect(planSidesFor({ base: null, ours: 'not a plan {', theirs: '' }, 3)).toEqual({
      base: null,
      ours: 'not a plan {',
      theirs: '',
    })
  })
})

describe('ralphActions', () => {
  const run = (path: string, s: Sides<Entry>) => ralphActions(new Map([[path, s]]))

  it("takes the lane's task state, even its deletion", () => {
    expect(run('.ralph/status.txt', sides(e('1'), e('2'), e('3'))).actions).toEqual([
      { path: '.ralph/status.txt', do: 'entry', entry: e('3') },
    ])
    expect(run('.ralph/progress.md', sides(e('1'), e('2'), null)).actions).toEqual([
      { path: '.ralph/progress.md', do: 'entry', entry: null },
    ])
  })

  it("keeps the integration's queue and config, with a note when the lane changed them", () => {
    const changed = run('.ralph/config.json', sides(e('1'), e('2'), e('3')))
    expect(changed.actions).toEqual([{ path: '.ralph/config.json', do: 'entry', entry: e('2') }])
    expect(changed.notes).toEqual([expect.stringMatching(/changed \.ralph\/config\.json.*never writes/)])
    const queue = run('.ralph/plan.jsonl', sides(e('1'), e('2'), null))
    expect(queue.actions).toEqual([{ path: '.ralph/plan.jsonl', do: 'entry', entry: e('2') }])
    expect(queue.notes).toEqual([expect.stringMatching(/plan\.jsonl.*owns the queue/)])
    expect(run('.ralph/plan.jsonl', sides(e('1'), e('2'), e('1'))).notes).toEqual([])
    expect(run('.ralph/config.json', sides(null, e('2'), null)).notes).toEqual([])
  })

  it('combines texts only where both sides hold differing files', () => {
    expect(run('.ralph/task-history.md', sides(e('1'), e('2'), e('3'))).actions).toEqual([
      { path: '.ralph/task-history.md', do: 'union' },
    ])
    expect(run('.ralph/task-counter.txt', sides(e('1'), e('2'), e('3'))).actions).toEqual([
      { path: '.ralph/task-counter.txt', do: 'max' },
    ])
    expect(run('.ralph/task-counter.txt', sides(e('1'), null, e('3'))).actions).toEqual([
      { path: '.ralph/task-counter.txt', do: 'entry', entry: e('3') },
    ])
    expect(run('.ralph/task-history.md', sides(e('1'), e('2'), e('2'))).actions).toEqual([
      { path: '.ralph/task-history.md', do: 'entry', entry: e('2') },
    ])
    expect(run('.ralph/plan.tsx', sides(e('1'), e('1'), e('1'))).actions).toEqual([
      { path: '.ralph/plan.tsx', do: 'plan' },
    ])
  })

  it('leaves out a path no side has, and refuses a path without a rule', () => {
    expect(run('.ralph/summary.md', sides(null, null, null))).toEqual({ actions: [], notes: [] })
    expect(() => run('src/a.ts', sides(e('1'), e('1'), e('1')))).toThrow(/no \.ralph\/ merge rule/)
  })

  it('notes nothing for rules that never drop a change', () => {
    expect(droppedChangeNote('.ralph/task.md', sides(e('1'), e('2'), e('3')))).toBeNull()
  })
})
