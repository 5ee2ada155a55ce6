import { describe, expect, it } from 'vitest'
import {
  answerWords,
  buildModeWords,
  checkWords,
  gateResultHint,
  gateResultWord,
  kindWords,
  outcomeWords,
  taskTypeWords,
} from './checkWords'

describe('check words', () => {
  it('names the loop’s gates in plain words, explained on hover', () => {
    expect(checkWords('has-summary').label).toBe('Summary written')
    expect(checkWords('changes-made').label).toBe('Files changed')
    expect(checkWords('scope-validation').label).toBe('Kept to the plan')
    expect(checkWords('plan-diff').hint).toMatch(/never blocks a task/)
  })

  it('names verification’s checks and criteria in plain words', () => {
    expect(checkWords('diff-size').label).toBe('Size of the change')
    expect(checkWords('blocked-paths').label).toBe('Protected files untouched')
    expect(checkWords('secrets').label).toBe('No secrets added')
    expect(checkWords('test').label).toBe('Tests')
    expect(checkWords('AC2')).toEqual({ label: 'Criterion 2', hint: 'Acceptance criterion 2 of the task.' })
  })

  it('names a project command it does not know by the command, never an empty word', () => {
    expect(checkWords('e2e')).toEqual({
      label: '“e2e” command',
      hint: `Runs the project's "e2e" command after the task's changes; the task is done only when it passes.`,
    })
  })

  it('says each gate result and what it means', () => {
    expect(['pass', 'warning', 'failure', 'odd'].map(gateResultWord)).toEqual([
      'passed',
      'warning',
      'failed',
      'odd',
    ])
    expect(gateResultHint('warning')).toBe('It passed with a warning (it does not block the task).')
    expect(gateResultHint('failure')).toMatch(/^It failed/)
  })

  it('has a word for every answer, outcome, criterion kind and build mode', () => {
    expect(answerWords).toEqual({ YES: 'Met', NO: 'Not met', NEEDS_HUMAN: 'Needs you' })
    expect(outcomeWords).toEqual({ PASS: 'Passed', FAIL: 'Failed', NEEDS_HUMAN: 'Needs your decision' })
    expect(kindWords.DET.label).toBe('Command')
    expect(kindWords.LLM.label).toBe('Model')
    expect(Object.values(buildModeWords).map((m) => m.label)).toEqual([
      'Stop when unsure',
      'Never stop',
      'Ask before accepting',
    ])
  })

  it('says task types as what the task does, not the parser’s words', () => {
    expect(taskTypeWords('fresh').label).toBe('New work')
    expect(taskTypeWords('mutation').label).toBe('Change')
    expect(taskTypeWords('bugfix').label).toBe('Bug fix')
    expect(taskTypeWords('needs-clarification').label).toBe('Question first')
    expect(taskTypeWords('odd').label).toBe('odd')
  })
})
