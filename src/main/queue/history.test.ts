import { describe, expect, it } from 'vitest'
import { commitMessage, parseCommitMessage } from './history'

describe('history commit messages', () => {
  it('round-trips the op, ids and spec through trailers under a one-line summary', () => {
    const text = commitMessage('task add t-1a2b: Add\nparser   tests', {
      op: 'task-add',
      ids: ['t-1a2b'],
      spec: 'specs/coverage.md',
    })
    expect(text.split('\n')[0]).toBe('task add t-1a2b: Add parser tests')
    expect(parseCommitMessage(text)).toEqual({
      summary: 'task add t-1a2b: Add parser tests',
      op: 'task-add',
      ids: ['t-1a2b'],
      spec: 'specs/coverage.md',
    })
  })

  it('reads a commit it did not write as op "unknown"', () => {
    expect(parseCommitMessage('hand-made\n')).toEqual({
      summary: 'hand-made',
      op: 'unknown',
      ids: [],
      spec: null,
    })
  })

  it('caps a very long summary', () => {
    const summary = commitMessage(`task add t-1: ${'x'.repeat(500)}`, {
      op: 'task-add',
      ids: [],
      spec: null,
    }).split('\n')[0]!
    expect(summary.length).toBe(200)
    expect(summary.endsWith('…')).toBe(true)
  })
})
