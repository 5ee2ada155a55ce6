import { describe, expect, it } from 'vitest'
import { pruneCandidates } from './maintenance'
import type { SnapshotMeta } from './types'

const DAY = 86_400_000
const snap = (tag: string, kind: SnapshotMeta['kind'], ageDays: number, extra: Partial<SnapshotMeta> = {}) =>
  ({
    tag,
    kind,
    commit: `c-${tag}`,
    createdAt: 100 * DAY - ageDays * DAY,
    rollbackTarget: null,
    ...extra,
  }) as SnapshotMeta

describe('pruneCandidates', () => {
  const all = [
    snap('manual-3', 'manual', 1),
    snap('safety-2', 'safety', 2, { rollbackTarget: 'task-1-post' }),
    snap('manual-2', 'manual', 5),
    snap('task-1-post', 'task-post', 9),
    snap('safety-1', 'safety', 9),
    snap('manual-1', 'manual', 10),
  ]
  it('removes nothing without a rule', () => {
    expect(pruneCandidates(all, null, {}, 100 * DAY)).toEqual([])
  })
  it('removes old manual and safety snapshots, never task ones, the undo target or the position', () => {
    expect(pruneCandidates(all, 'c-manual-1', { olderThanDays: 3 }, 100 * DAY)).toEqual([
      'manual-2',
      'safety-1',
    ])
  })
  it('keeps the newest of each kind', () => {
    expect(pruneCandidates(all, null, { keepLast: 1 }, 100 * DAY)).toEqual([
      'manual-2',
      'manual-1',
      'safety-1',
    ])
  })
})
