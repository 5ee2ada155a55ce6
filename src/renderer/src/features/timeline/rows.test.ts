import { describe, expect, it } from 'vitest'
import { changeWords, kindWords, ralphWords } from './rows'

const c = (added: number, modified: number, deleted: number) => ({ added, modified, deleted })

describe('timeline words (issue 37: plain words, never "+0 ~0 -0")', () => {
  it('says nothing changed, one kind with its noun, or the total and its kinds', () => {
    expect(changeWords(c(0, 0, 0))).toBe('No files changed')
    expect(changeWords(c(1, 0, 0))).toBe('1 file added')
    expect(changeWords(c(0, 3, 0))).toBe('3 files changed')
    expect(changeWords(c(0, 0, 2))).toBe('2 files deleted')
    expect(changeWords(c(1, 2, 0))).toBe('3 files changed: 1 added, 2 changed')
    expect(changeWords(c(2, 1, 1))).toBe('4 files changed: 2 added, 1 changed, 1 deleted')
  })

  it('lists only the kinds that occur', () => {
    expect(kindWords(c(0, 0, 0))).toBe('')
    expect(kindWords(c(0, 2, 1))).toBe('2 changed, 1 deleted')
  })

  it('says how many of Ralph’s own files changed, what they are and which kinds', () => {
    expect(ralphWords(c(1, 12, 0))).toBe(
      '13 files of Ralph’s own (.ralph/: its state, plan and logs): 1 added, 12 changed',
    )
    expect(ralphWords(c(0, 1, 0))).toBe(
      '1 file of Ralph’s own (.ralph/: its state, plan and logs): 1 changed',
    )
  })
})
