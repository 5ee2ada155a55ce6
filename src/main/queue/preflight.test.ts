import { describe, expect, it } from 'vitest'
import { planPreflight } from './preflight'
import { spec, stateOf, task } from './testkit'

describe('planPreflight', () => {
  it('asks nothing when no task is left', () => {
    expect(planPreflight(stateOf(spec(), { t: 'issue', id: 'i-1', spec: 'a.md', desc: 'd' }))).toMatchObject({
      needsChoice: false,
      choices: [],
    })
  })

  it("lists pending and done tasks and offers cancel or abort, in seed 001's words", () => {
    const p = planPreflight(
      stateOf(
        spec('old-spec.md'),
        task('t-1a2b', { spec: 'old-spec.md', name: 'Add unit tests for parser' }),
        task('t-3c4d', { spec: 'old-spec.md', name: 'Fix edge case in tokenizer', s: 'd', done_at: 'x' }),
      ),
    )
    expect(p.needsChoice).toBe(true)
    expect(p.choices.map((c) => `${c.key}:${c.choice}`)).toEqual(['c:cancel', 'a:abort'])
    expect(p.prompt).toBe(
      [
        "Found unfinished tasks from spec 'old-spec.md':",
        '  - [pending] t-1a2b: Add unit tests for parser',
        '  - [done] t-3c4d: Fix edge case in tokenizer',
        '',
        'What would you like to do?',
        '  [c] Cancel existing tasks and start fresh',
        '  [a] Abort (keep current plan)',
      ].join('\n'),
    )
  })
})
