import type { RollbackReportDto, SnapshotMetaDto } from '../../../../shared/api/snapshots'

const NOW = Date.now()

/** A snapshot as `snapshots.list` returns it. */
export const snap = (patch: Partial<SnapshotMetaDto> & { tag: string }): SnapshotMetaDto => ({
  commit: 'c'.repeat(40),
  kind: 'manual',
  task: null,
  message: '',
  createdAt: NOW - 5 * 60_000,
  added: 0,
  modified: 0,
  deleted: 0,
  skipped: [],
  skippedTotal: 0,
  durationMs: 12,
  rollbackTarget: null,
  ...patch,
})

/** Newest first: two tasks, a manual snapshot between them, a safety one on top and the baseline at the bottom. */
export const history: SnapshotMetaDto[] = [
  snap({ tag: 'safety-1700000300', kind: 'safety', message: 'before rolling back to task-1-post' }),
  snap({ tag: 'task-2-post', kind: 'task-post', task: 2, message: 'Add opening hours', modified: 1 }),
  snap({ tag: 'task-2-pre', kind: 'task-pre', task: 2, message: 'Add opening hours' }),
  snap({
    tag: 'manual-1700000200',
    kind: 'manual',
    message: 'my own save',
    added: 2,
    modified: 1,
    deleted: 1,
  }),
  snap({
    tag: 'task-1-post',
    kind: 'task-post',
    task: 1,
    message: 'Greet the world',
    // One file of the user's, six of Ralph's own (.ralph/): the totals include them.
    modified: 7,
    ralph: { added: 0, modified: 6, deleted: 0 },
  }),
  snap({ tag: 'task-1-pre', kind: 'task-pre', task: 1, message: 'Greet the world' }),
  snap({
    tag: 'baseline-1700000000',
    kind: 'baseline',
    message: 'baseline',
    added: 3,
    skippedTotal: 1,
    skipped: [{ path: 'video.mp4', reason: 'too-large', size: 9e6 }],
  }),
]

export const report = (patch: Partial<RollbackReportDto> = {}): RollbackReportDto => ({
  preview: true,
  target: 'task-1-pre',
  targetCommit: 'a'.repeat(40),
  safetyTag: null,
  written: [
    { path: 'index.html', change: 'modified' },
    { path: 'old.css', change: 'added' },
  ],
  deleted: ['hours.html'],
  leftAlone: [{ path: 'node_modules', reason: 'ignored-or-skipped' }],
  skipped: [],
  neverSnapshotted: [],
  durationMs: 5,
  ...patch,
})

/** `snapshots.status` over `history`: at its newest entry, with the working copy changed unless `patch` says not. */
export const snapshotStatus = (patch: Record<string, unknown> = {}) => ({
  position: history[0],
  latest: history[0],
  dirty: true,
  changes: { added: 1, modified: 3, deleted: 0, ralph: { added: 0, modified: 1, deleted: 0 } },
  trackedFiles: 10,
  snapshotCount: history.length,
  lastSnapshotAt: history[0]!.createdAt,
  repairs: [],
  ...patch,
})
