// The snapshot shapes are zod schemas in the contract (DESIGN.md §2: one source per fact); the engine uses their
// inferred types. Only what never crosses the contract (raw bytes, engine hooks) is declared here. The kinds'
// list comes from the zod-free shared/snapshotTags.ts: only types are taken from the contract at run time.
export { snapshotKinds } from '../../shared/snapshotTags'
export type {
  ChangeCounts,
  DiffEntry,
  DiffResult,
  DiffStatus,
  FileDiff,
  FileSide,
  LeftAlone,
  ListOptions,
  ListResult,
  NeverSnapshotted,
  PruneOptions,
  PruneResult,
  RollbackReport,
  SkipReason,
  SkippedFile,
  SnapshotKind,
  SnapshotMeta,
  StatusResult,
  UsageResult,
  BaselineProgress,
} from '../../shared/api/snapshots'
import type { BaselineProgress, SnapshotKind, SnapshotMeta } from '../../shared/api/snapshots'

export interface SaveOptions {
  kind: SnapshotKind
  /** Required for task-pre, task-post and stall-recovery. */
  task?: number
  message?: string
  /** Stops the save before anything is committed (the background baseline's Cancel). */
  signal?: AbortSignal
  /** Files read so far of the estimated total, for a first save of many files. */
  onProgress?: (progress: BaselineProgress) => void
}

export type SaveResult = SnapshotMeta

export interface ShowResult {
  tag: string
  path: string
  size: number
  binary: boolean
  content: Buffer
}

export interface RepairReport {
  repairs: string[]
}

/** Optional sink for snapshot metadata (the app's SQLite store); the engine works without it. */
export interface SnapshotIndex {
  record(meta: SnapshotMeta): void | Promise<void>
  remove(tags: string[]): void | Promise<void>
}
