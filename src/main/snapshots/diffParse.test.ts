import { describe, expect, it } from 'vitest'
import { countDiffEntries, countNameStatus, parseNameStatus } from './diffParse'

describe('diff parsing', () => {
  it('reads name-status fields, renames and copies included', () => {
    const entries = parseNameStatus([
      'A',
      'new',
      'R087',
      'old',
      'moved',
      'C100',
      'src',
      'copy',
      'T',
      'link',
      'D',
      'gone',
      'M',
      'x',
    ])
    expect(entries).toEqual([
      { status: 'added', path: 'new' },
      { status: 'renamed', path: 'moved', oldPath: 'old', similarity: 87 },
      { status: 'added', path: 'copy' },
      { status: 'typechange', path: 'link' },
      { status: 'deleted', path: 'gone' },
      { status: 'modified', path: 'x' },
    ])
    expect(countDiffEntries(entries)).toEqual({ added: 2, modified: 2, deleted: 1, renamed: 1 })
    expect(countNameStatus(['A', 'a', 'D', 'b', 'M', 'c', 'T', 'd'])).toMatchObject({
      added: 1,
      modified: 2,
      deleted: 1,
    })
  })
})

describe('countNameStatus', () => {
  it("counts Ralph's own files (.ralph/) apart, inside the totals", () => {
    const fields = ['M', 'index.html', 'M', '.ralph/state.json', 'A', '.ralph/plan.md', 'D', 'old.txt']
    expect(countNameStatus(fields)).toEqual({
      added: 1,
      modified: 2,
      deleted: 1,
      ralph: { added: 1, modified: 1, deleted: 0 },
    })
  })
})
