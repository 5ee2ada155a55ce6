import { describe, expect, it } from 'vitest'
import { combineOutcome, verifyFeedback, type CriterionVerdict } from '.'

const v = (
  ref: string,
  answer: CriterionVerdict['answer'],
  kind: CriterionVerdict['kind'] = 'LLM',
): CriterionVerdict => ({
  ref,
  kind,
  text: `text of ${ref}`,
  answer,
  reason: `reason for ${ref}`,
  costUsd: 0,
})

describe('combineOutcome', () => {
  it('is FAIL on any NO (even next to NEEDS_HUMAN), NEEDS_HUMAN on any undecided, PASS otherwise', () => {
    expect(combineOutcome([v('test', 'YES', 'DET'), v('AC1', 'YES')])).toBe('PASS')
    expect(combineOutcome([])).toBe('PASS')
    expect(combineOutcome([v('AC1', 'YES'), v('AC2', 'NEEDS_HUMAN')])).toBe('NEEDS_HUMAN')
    expect(combineOutcome([v('AC1', 'NO'), v('AC2', 'NEEDS_HUMAN')])).toBe('FAIL')
    expect(combineOutcome([v('lint', 'NO', 'DET')])).toBe('FAIL')
  })
})

describe('verifyFeedback', () => {
  it('is empty on PASS', () => {
    expect(verifyFeedback('PASS', [v('AC1', 'YES')])).toBe('')
  })

  it('lists the failing checks and criteria for the next attempt, then the undecided ones', () => {
    const text = verifyFeedback('FAIL', [
      v('lint', 'NO', 'DET'),
      v('AC1', 'YES'),
      v('AC2', 'NO'),
      v('AC3', 'NEEDS_HUMAN'),
    ])
    expect(text).toBe(
      [
        '# Verification failed',
        '',
        'The task was checked against its acceptance criteria and was rejected:',
        '',
        '- FAIL lint check: reason for lint',
        '- FAIL AC2 (LLM: text of AC2): reason for AC2',
        '',
        '- UNDECIDED AC3 (LLM: text of AC3): reason for AC3',
        '',
        'Fix every FAIL above; the criteria are checked again when the task is complete.',
        '',
      ].join('\n'),
    )
  })

  it('names what a person must decide on NEEDS_HUMAN', () => {
    const text = verifyFeedback('NEEDS_HUMAN', [v('AC1', 'YES'), v('AC2', 'NEEDS_HUMAN')])
    expect(text).toContain('# Verification needs a person')
    expect(text).toContain('- AC2 (LLM: text of AC2): reason for AC2')
    expect(text).not.toContain('AC1')
  })
})
