import { describe, expect, it } from 'vitest'
import { callFile, diffCall, languageOf, orient, orientStat, rangeFor, statText } from './compareRange'
import { snap } from './testData'

describe('compare helpers', () => {
  it('asks the core with a snapshot first, turning a range from the working copy round', () => {
    expect(diffCall({ from: 'a', to: 'b' })).toEqual({ target: 'a', against: 'b', swapped: false })
    expect(diffCall({ from: 'a', to: 'working' })).toEqual({ target: 'a', swapped: false })
    expect(diffCall({ from: 'working', to: 'b' })).toEqual({ target: 'b', swapped: true })
    expect(diffCall({ from: 'a', to: 'a' })).toBeNull()
    expect(diffCall({ from: 'working', to: 'working' })).toBeNull()
  })

  it('turns entries, renamed paths and line counts back', () => {
    expect(orient({ status: 'added', path: 'x' }, true)).toEqual({ status: 'deleted', path: 'x' })
    expect(orient({ status: 'renamed', path: 'new', oldPath: 'old' }, true)).toEqual({
      status: 'renamed',
      path: 'old',
      oldPath: 'new',
    })
    expect(orient({ status: 'added', path: 'x' }, false)).toEqual({ status: 'added', path: 'x' })
    expect(callFile({ status: 'renamed', path: 'old', oldPath: 'new' }, true)).toEqual({
      path: 'new',
      oldPath: 'old',
    })
    expect(callFile({ status: 'renamed', path: 'new', oldPath: 'old' }, false)).toEqual({
      path: 'new',
      oldPath: 'old',
    })
    const stat = { path: 'x', additions: 2, deletions: 5, binary: false, tooLarge: false }
    expect(orientStat(stat, true)).toMatchObject({ additions: 5, deletions: 2 })
    expect(statText(stat)).toEqual({ short: '+2 −5', words: '2 lines added, 5 deleted' })
    expect(statText({ ...stat, additions: null, deletions: null, binary: true })?.short).toBe('binary')
  })

  it('starts from the snapshot before an entry, a task’s pre for its post, the working copy after the oldest', () => {
    const post = snap({ tag: 'task-3-post', kind: 'task-post', task: 3 })
    expect(rangeFor(post, snap({ tag: 'manual-5' }))).toEqual({ from: 'task-3-pre', to: 'task-3-post' })
    expect(rangeFor(snap({ tag: 'manual-6' }), snap({ tag: 'manual-5' }))).toEqual({
      from: 'manual-5',
      to: 'manual-6',
    })
    expect(rangeFor(snap({ tag: 'baseline-1' }), undefined)).toEqual({ from: 'baseline-1', to: 'working' })
  })

  it('picks Monaco’s language by extension', () => {
    expect(languageOf('src/a.tsx')).toBe('typescript')
    expect(languageOf('README.MD')).toBe('markdown')
    expect(languageOf('Makefile')).toBe('plaintext')
    expect(languageOf('.env')).toBe('plaintext')
  })
})
