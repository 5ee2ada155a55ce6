import { describe, expect, it } from 'vitest'
import { newSessionState } from './newSession'
import { energyCheckDue, leastExplored, organizeAllowed, scheduleAfterIdeas } from './scheduler'
import { resolveChoice } from './choices'

describe('scheduler', () => {
  it('fires every interrupt crossed by one big jump once, and one pivot', () => {
    const s = newSessionState('full', null)
    s.ideaCount = 45
    const events = scheduleAfterIdeas(s)
    expect(events).toEqual([
      { type: 'interrupt', kind: 'reverse', at: 45 },
      { type: 'interrupt', kind: 'analogy', at: 45 },
      { type: 'impossible', at: 45 },
      { type: 'pivot', to: 'Core', at: 45 },
    ])
    expect(s.nextPivotAt).toBe(50)
    expect(scheduleAfterIdeas(s)).toEqual([])
  })

  it('pivots to the domain with fewest ideas, then fewest pivots', () => {
    expect(leastExplored({ Core: 3, UX: 1 }, [])).toBe('DX')
    const all = Object.fromEntries(
      ['Core', 'UX', 'DX', 'Ops', 'Biz', 'Edge', 'Eco', 'A11y', 'Perf', 'Sec', 'Comm', 'Docs'].map((t) => [
        t,
        2,
      ]),
    )
    expect(leastExplored({ ...all, Sec: 1 }, [])).toBe('Sec')
    expect(leastExplored(all, ['Core', 'UX'])).toBe('DX')
  })

  it('asks about energy every fifth exchange; ORGANIZE needs a request or 50 ideas', () => {
    const s = newSessionState('full', null)
    expect([1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map(() => energyCheckDue(s))).toEqual([
      false,
      false,
      false,
      false,
      true,
      false,
      false,
      false,
      false,
      true,
    ])
    s.ideaCount = 49
    expect(organizeAllowed(s, false)).toBe(false)
    expect(organizeAllowed(s, true)).toBe(true)
    s.ideaCount = 50
    expect(organizeAllowed(s, false)).toBe(true)
  })
})

describe('resolveChoice', () => {
  const choice = {
    kind: 'choice' as const,
    id: 'x',
    text: 't',
    default: 'draft',
    options: [
      { value: 'update', label: 'Update: replace VISION.md' },
      { value: 'draft', label: 'New draft: write VISION.draft.md' },
    ],
  }
  it('takes a number, a value, a label or the part of a label before its colon', () => {
    expect(
      ['1', ' 2 ', 'update', 'NEW DRAFT', 'New draft: write VISION.draft.md'].map((a) =>
        resolveChoice(choice, a),
      ),
    ).toEqual(['update', 'draft', 'update', 'draft', 'draft'])
  })
  it('refuses anything else', () => {
    expect(['3', '0', 'yes', '', 'update please'].map((a) => resolveChoice(choice, a))).toEqual([
      null,
      null,
      null,
      null,
      null,
    ])
  })
})
