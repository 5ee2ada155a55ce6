/** Kinds of snapshot, each with its own tag scheme (DESIGN.md §5). */
export const snapshotKinds = ['task-pre', 'task-post', 'manual', 'stall-recovery', 'safety'] as const
export type SnapshotKind = (typeof snapshotKinds)[number]

export type SkipReason = 'too-large' | 'nested-repo' | 'unreadable'

export interface SkippedFile {
  path: string
  reason: SkipReason
  /** Bytes, for too-large files. */
  size?: number
}

export interface ChangeCounts {
  added: number
  modified: number
  deleted: number
}

/** What the store knows about one snapshot; mirrored into SQLite through a SnapshotIndex. */
export interface SnapshotMeta extends ChangeCounts {
  tag: string
  commit: string
  kind: SnapshotKind
  task: number | null
  message: string
  /** Unix milliseconds. */
  createdAt: number
  skipped: SkippedFile[]
  /** Skipped files beyond the ones listed (lists are capped to keep commits small). */
  skippedTotal: number
  durationMs: number
  /** For safety snapshots: the tag the rollback went to. */
  rollbackTarget: string | null
}

export interface SaveOptions {
  kind: SnapshotKind
  /** Required for task-pre, task-post and stall-recovery. */
  task?: number
  message?: string
}

export type SaveResult = SnapshotMeta

export interface ListOptions {
  offset?: number
  limit?: number
  kind?: SnapshotKind
  task?: number
}

export interface ListResult {
  items: SnapshotMeta[]
  total: number
}

export type DiffStatus = 'added' | 'modified' | 'deleted' | 'renamed' | 'typechange'

export interface DiffEntry {
  status: DiffStatus
  path: string
  /** For renames: where the file was. */
  oldPath?: string
  /** For renames: git's similarity percentage. */
  similarity?: number
}

export interface DiffResult {
  from: string
  /** A tag, or null for the working tree. */
  to: string | null
  entries: DiffEntry[]
  counts: ChangeCounts & { renamed: number }
}

export interface FileSide {
  exists: boolean
  size: number
  binary: boolean
  /** True when the file is larger than the limit; content is then omitted. */
  tooLarge: boolean
  /** UTF-8 text, or null for missing, binary or too-large files. */
  content: string | null
}

export interface FileDiff {
  path: string
  from: string
  to: string | null
  old: FileSide
  new: FileSide
}

export interface ShowResult {
  tag: string
  path: string
  size: number
  binary: boolean
  content: Buffer
}

export interface StatusResult {
  /** The snapshot the working tree was last saved as or rolled back to. */
  position: SnapshotMeta | null
  latest: SnapshotMeta | null
  dirty: boolean
  changes: ChangeCounts
  trackedFiles: number
  snapshotCount: number
  lastSnapshotAt: number | null
  /** What the last open repaired (stale locks, broken refs …). */
  repairs: string[]
}

export interface LeftAlone {
  path: string
  reason: 'ignored-or-skipped' | 'nested-repo' | 'in-the-way'
}

export interface RollbackReport {
  preview: boolean
  target: string
  targetCommit: string
  /** Tag of the safety snapshot taken first; null in a preview. */
  safetyTag: string | null
  written: { path: string; change: 'added' | 'modified' | 'typechange' }[]
  deleted: string[]
  leftAlone: LeftAlone[]
  /** Files the current state could not hold (too large, nested repos): never touched. */
  skipped: SkippedFile[]
  /** Files the target skipped that are gone from disk now: the rollback cannot bring them back. */
  neverSnapshotted: NeverSnapshotted[]
  durationMs: number
}

export interface NeverSnapshotted extends SkippedFile {
  /** For people: "data.db (6 MB) was never snapshotted (over the size cap) and is no longer on disk: …". */
  message: string
}

export interface UsageResult {
  storeBytes: number
  looseObjects: number
  packs: number
  snapshotCount: number
}

export interface PruneOptions {
  /** Remove manual-* and safety-* snapshots older than this many days. */
  olderThanDays?: number
  /** Keep only the newest N manual-* and N safety-* snapshots. */
  keepLast?: number
  dryRun?: boolean
}

export interface PruneResult {
  removedTags: string[]
  bytesBefore: number
  bytesAfter: number
  dryRun: boolean
}

export interface RepairReport {
  repairs: string[]
}

/** Optional sink for snapshot metadata (the app's SQLite store); the engine works without it. */
export interface SnapshotIndex {
  record(meta: SnapshotMeta): void | Promise<void>
  remove(tags: string[]): void | Promise<void>
}
