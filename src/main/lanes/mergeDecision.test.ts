import { describe, expect, it } from 'vitest'
import { conflictFeedback, nextAfterMerge } from './mergeDecision'

const conflict = {
  kind: 'conflict' as const,
  conflicts: [{ path: 'src/a.ts', kinds: ['CONFLICT (contents)'] }],
}
const clean = { kind: 'clean' as const, tree: 'abc' }

describe('nextAfterMerge', () => {
  it('verifies a clean merge again before it counts, and applies it only on PASS', () => {
    expect(nextAfterMerge({ attempt: 1, outcome: clean })).toEqual({ do: 'verify-merged', tree: 'abc' })
    expect(nextAfterMerge({ attempt: 1, outcome: clean, verdict: { verdict: 'PASS', reason: '' } })).toEqual({
      do: 'apply',
      tree: 'abc',
    })
  })

  it('reruns once on the new base with the conflict as feedback, then escalates', () => {
    const first = nextAfterMerge({ attempt: 1, outcome: conflict })
    expect(first.do).toBe('rerun')
    expect(first.do === 'rerun' && first.feedback).toMatch(/src\/a\.ts \(CONFLICT \(contents\)\)/)
    const second = nextAfterMerge({ attempt: 2, outcome: conflict })
    expect(second.do).toBe('escalate')
    expect(second.do === 'escalate' && second.reason).toMatch(/after a rerun/)
  })

  it('treats a FAIL on the merged tree like a conflict: rerun, then escalate, never apply', () => {
    const fail = { verdict: 'FAIL' as const, reason: 'tests broke' }
    const first = nextAfterMerge({ attempt: 1, outcome: clean, verdict: fail })
    expect(first).toEqual({ do: 'rerun', feedback: expect.stringContaining('tests broke') as string })
    expect(nextAfterMerge({ attempt: 2, outcome: clean, verdict: fail }).do).toBe('escalate')
  })

  it('refuses a nonsense attempt number', () => {
    expect(() => nextAfterMerge({ attempt: 0, outcome: clean })).toThrow(RangeError)
  })
})

describe('conflictFeedback', () => {
  it("explains a plan.tsx conflict, and a rerun's feedback names the lane changes the rules dropped", () => {
    const plan = conflictFeedback([{ path: '.ralph/plan.tsx', kinds: ['CONFLICT (contents)'] }])
    expect(plan).toMatch(/\.ralph\/plan\.tsx \(CONFLICT \(contents\)\)/)
    expect(plan).toMatch(/markers of other tasks were set aside/)
    expect(conflictFeedback(conflict.conflicts)).not.toMatch(/markers/)
    const note = "The task changed .ralph/config.json; the integration's copy was kept."
    const next = nextAfterMerge({ attempt: 1, outcome: { ...conflict, notes: [note] } })
    expect(next.do === 'rerun' && next.feedback).toMatch(/redo your task on top of it\. The task changed/)
  })
})
