import { describe, expect, it } from 'vitest'
import { decideAttempt, freshAttempts } from './decide'
import { historyLine, keptInFolder, userEditClashes, userEditsMessage, waitsForMerge } from './laneSteps'

const policy = { maxFailures: 3, mode: 'hybrid' as const }

describe('the lanes build’s decisions', () => {
  it('keeps the build’s own files and its notifications in the folder, once each', () => {
    expect(keptInFolder(['.ralph/notifications/a.md', './.ralph/notifications/a.md'])).toEqual([
      '.ralph/plan.jsonl',
      '.ralph/task-counter.txt',
      '.ralph/task-history.md',
      '.ralph/notifications/a.md',
    ])
  })

  it('merges before accepting or handing to a person; rejections, retries and stops happen at once', () => {
    const pass = decideAttempt('t-a', freshAttempts(), { kind: 'verified', outcome: 'PASS' }, policy)
    expect(waitsForMerge(pass.actions)).toBe(true)
    const human = decideAttempt(
      't-a',
      freshAttempts(),
      { kind: 'verified', outcome: 'NEEDS_HUMAN', feedback: 'x' },
      policy,
    )
    expect(waitsForMerge(human.actions)).toBe(true)
    const interactive = decideAttempt(
      't-a',
      freshAttempts(),
      { kind: 'verified', outcome: 'PASS' },
      { ...policy, mode: 'interactive' },
    )
    expect(waitsForMerge(interactive.actions)).toBe(true)
    const fail = decideAttempt(
      't-a',
      freshAttempts(),
      { kind: 'verified', outcome: 'FAIL', feedback: 'f', reason: 'r' },
      policy,
    )
    expect(waitsForMerge(fail.actions)).toBe(false)
    const stopped = decideAttempt(
      't-a',
      freshAttempts(),
      { kind: 'task-failed', reason: 'stopped', message: 'm' },
      policy,
    )
    expect(waitsForMerge(stopped.actions)).toBe(false)
  })

  it('writes the merged task’s history line from its summary’s first prose line', () => {
    expect(historyLine(7, '# Summary\n\nWrote a.txt.\nMore.')).toBe('- Task 7 (complete): Wrote a.txt.')
    expect(historyLine(2, '')).toBe('- Task 2 (complete): merged from its lane')
    expect(historyLine(3, 'x'.repeat(200))).toHaveLength('- Task 3 (complete): '.length + 160)
  })

  it('names the files of a user-edits pause, and at most ten', () => {
    const paths = Array.from({ length: 12 }, (_, i) => `f${i}.ts`)
    const message = userEditsMessage('t-a', 4, paths)
    expect(message).toContain('t-a (task 4)')
    expect(message).toContain('f0.ts, f1.ts')
    expect(message).toContain('and 2 more')
    expect(message).not.toContain('f11.ts')
  })

  it('pauses only for the user’s edits to files the merged task changes', () => {
    const task = new Set(['a.txt', '.ralph/task.md', '.ralph/plan.jsonl'])
    expect(userEditClashes(['a.txt', 'notes.txt', '.ralph/plan.jsonl'], task)).toEqual(['a.txt'])
    expect(userEditClashes(['notes.txt'], task)).toEqual([])
  })
})
