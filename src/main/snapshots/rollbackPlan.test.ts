import { describe, expect, it } from 'vitest'
import type { TreeChange } from './applyChanges'
import { formatBytes, neverSnapshottedOf, planChanges, tornFiles } from './rollbackPlan'

const change = (status: TreeChange['status'], path: string, newSha = 'b'.repeat(40)): TreeChange =>
  ({ status, path, oldMode: '100644', newMode: '100644', oldSha: 'a'.repeat(40), newSha }) as TreeChange

describe('planChanges', () => {
  it('writes modified and added files in path order, deletes the deleted, leaves conflicting additions alone', () => {
    const plan = planChanges(
      [
        change('M', 'b.ts'),
        change('A', 'a.ts'),
        change('D', 'gone.ts'),
        change('T', 'link'),
        change('A', 'x'),
      ],
      (path, deleted, lower) => {
        expect(deleted.has('gone.ts')).toBe(true)
        expect(lower.has('gone.ts')).toBe(true)
        return path === 'x' ? 'ignored-or-skipped' : null
      },
    )
    expect(plan.written).toEqual([
      { path: 'a.ts', change: 'added' },
      { path: 'b.ts', change: 'modified' },
      { path: 'link', change: 'typechange' },
    ])
    expect(plan.deleted).toEqual(['gone.ts'])
    expect(plan.leftAlone).toEqual([{ path: 'x', reason: 'ignored-or-skipped' }])
  })
})

describe('neverSnapshottedOf', () => {
  it('names the skipped files no longer on disk, with their size', () => {
    const out = neverSnapshottedOf(
      [
        { path: 'big.bin', reason: 'too-large', size: 6 * 1024 * 1024 },
        { path: 'here.txt', reason: 'unreadable' },
      ],
      (p) => p === 'here.txt',
    )
    expect(out).toHaveLength(1)
    expect(out[0]!.message).toBe(
      'big.bin (6 MB) was never snapshotted (over the size cap) and is no longer on disk: the rollback cannot bring it back.',
    )
    expect(formatBytes(300 * 1024)).toBe('300 KB')
    expect(formatBytes(12)).toBe('12 bytes')
  })
})

describe('tornFiles', () => {
  it('accepts files at the target, names one torn file, and refuses changes the rollback does not explain', () => {
    const planned = [change('M', 'a', 'c'.repeat(40)), change('M', 'b', 'c'.repeat(40))]
    expect(tornFiles([change('M', 'a', 'c'.repeat(40))], planned)).toEqual([])
    expect(tornFiles([change('M', 'a', 'd'.repeat(40))], planned)).toEqual(['a'])
    expect(tornFiles([change('M', 'z')], planned)).toBe(
      'z changed since, and the rollback does not change it.',
    )
    expect(tornFiles([change('M', 'a'), change('M', 'b')], planned)).toMatch(
      /^2 files \(a, b\) match neither/,
    )
  })
})
