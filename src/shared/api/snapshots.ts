import { z } from 'zod'
import { projectId, projectOnly } from './common'
import { kindOfTag, snapshotKinds, snapshotTags, type SnapshotKind } from '../snapshotTags'
import { defineCalls, defineEvents } from './define'

const tag = z.string().min(1).max(200)
const path = z.string().min(1).max(4096)

/** Kinds of snapshot, each with its own tag scheme (DESIGN.md §5); the list and the tag helpers live zod-free. */
export const snapshotKindSchema = z.enum(snapshotKinds)
export { kindOfTag, snapshotKinds, snapshotTags, type SnapshotKind }

export const skippedFileSchema = z.object({
  path: z.string(),
  /** credentials: a credential store, Ralph's app data folder or a token file (DESIGN.md §14), never stored. */
  reason: z.enum(['too-large', 'nested-repo', 'unreadable', 'credentials']),
  /** Bytes, for too-large files. */
  size: z.number().optional(),
})
export type SkippedFile = z.infer<typeof skippedFileSchema>
export type SkipReason = SkippedFile['reason']

const counts = { added: z.number().int(), modified: z.number().int(), deleted: z.number().int() }
/**
 * Of the counts, the files under .ralph/ (Ralph's own state, #26): already included in added/modified/deleted, so
 * the user's files are the totals minus these. Absent on records written before the split was kept.
 */
const ralphCounts = { ralph: z.object(counts).optional() }
export const changeCountsSchema = z.object({ ...counts, ...ralphCounts })
export type ChangeCounts = z.infer<typeof changeCountsSchema>

/** What the store knows about one snapshot; mirrored into SQLite for the timeline. */
export const snapshotMetaSchema = z.object({
  tag: z.string(),
  commit: z.string(),
  kind: snapshotKindSchema,
  task: z.number().int().nullable(),
  message: z.string(),
  /** Unix milliseconds. */
  createdAt: z.number(),
  ...counts,
  ...ralphCounts,
  skipped: z.array(skippedFileSchema),
  /** Skipped files beyond the ones listed (lists are capped to keep commits small). */
  skippedTotal: z.number().int(),
  durationMs: z.number(),
  /** For safety snapshots: the tag the rollback went to. */
  rollbackTarget: z.string().nullable(),
})
export type SnapshotMeta = z.infer<typeof snapshotMetaSchema>
export type SnapshotMetaDto = SnapshotMeta

export const diffEntrySchema = z.object({
  status: z.enum(['added', 'modified', 'deleted', 'renamed', 'typechange']),
  path: z.string(),
  /** For renames: where the file was. */
  oldPath: z.string().optional(),
  /** For renames: git's similarity percentage. */
  similarity: z.number().optional(),
})
export type DiffEntry = z.infer<typeof diffEntrySchema>
export type DiffStatus = DiffEntry['status']

/** One file's line counts; null when a side is binary or too large to read (no line diff then). */
export const diffStatSchema = z.object({
  path: z.string(),
  additions: z.number().int().nullable(),
  deletions: z.number().int().nullable(),
  binary: z.boolean(),
  tooLarge: z.boolean(),
})
export type DiffStatDto = z.infer<typeof diffStatSchema>

const fileSideSchema = z.object({
  exists: z.boolean(),
  size: z.number(),
  binary: z.boolean(),
  /** True when the file is larger than the limit; content is then omitted. */
  tooLarge: z.boolean(),
  /** UTF-8 text, or null for missing, binary or too-large files. */
  content: z.string().nullable(),
})
export type FileSide = z.infer<typeof fileSideSchema>

export const diffResultSchema = z.object({
  from: z.string(),
  /** A tag, or null for the working tree. */
  to: z.string().nullable(),
  entries: z.array(diffEntrySchema),
  counts: z.object({ ...counts, renamed: z.number().int() }),
})
export type DiffResult = z.infer<typeof diffResultSchema>

export const fileDiffSchema = z.object({
  path: z.string(),
  from: z.string(),
  to: z.string().nullable(),
  old: fileSideSchema,
  new: fileSideSchema,
})
export type FileDiff = z.infer<typeof fileDiffSchema>

export const leftAloneSchema = z.object({
  path: z.string(),
  reason: z.enum(['ignored-or-skipped', 'nested-repo', 'in-the-way']),
})
export type LeftAlone = z.infer<typeof leftAloneSchema>

export const neverSnapshottedSchema = skippedFileSchema.extend({
  /** For people: "data.db (6 MB) was never snapshotted (over the size cap) and is no longer on disk: …". */
  message: z.string(),
})
export type NeverSnapshotted = z.infer<typeof neverSnapshottedSchema>

export const rollbackReportSchema = z.object({
  preview: z.boolean(),
  target: z.string(),
  targetCommit: z.string(),
  /** Tag of the safety snapshot taken first; null in a preview. */
  safetyTag: z.string().nullable(),
  written: z.array(z.object({ path: z.string(), change: z.enum(['added', 'modified', 'typechange']) })),
  deleted: z.array(z.string()),
  leftAlone: z.array(leftAloneSchema),
  /** Files the current state could not hold (too large, nested repos): never touched. */
  skipped: z.array(skippedFileSchema),
  /** Files the target snapshot skipped (too large, unreadable) that are gone from disk: they cannot come back. */
  neverSnapshotted: z.array(neverSnapshottedSchema).default([]),
  durationMs: z.number(),
})
export type RollbackReport = z.infer<typeof rollbackReportSchema>
export type RollbackReportDto = RollbackReport

/**
 * A rollback or undo that was killed midway (its journal was left behind). `finished`: the next open of the store
 * completed it; `interrupted`: it could not be completed safely, and Finish rollback (snapshots.finishRollback)
 * completes it after a safety snapshot of the files as they are.
 */
export const rollbackNoticeSchema = z.object({
  state: z.enum(['finished', 'interrupted']),
  /** The tag the rollback was going to. */
  target: z.string(),
  /** The safety snapshot taken before it began. */
  safetyTag: z.string(),
  undo: z.boolean(),
  startedAt: z.number(),
  /** For `interrupted`: why it was not finished on its own. */
  reason: z.string().nullable(),
  /** The sentence for the user ("A rollback to … was interrupted and has been finished …"). */
  message: z.string(),
})
export type RollbackNotice = z.infer<typeof rollbackNoticeSchema>

export const statusResultSchema = z.object({
  /** The snapshot the working tree was last saved as or rolled back to. */
  position: snapshotMetaSchema.nullable(),
  latest: snapshotMetaSchema.nullable(),
  dirty: z.boolean(),
  changes: changeCountsSchema,
  trackedFiles: z.number().int(),
  snapshotCount: z.number().int(),
  lastSnapshotAt: z.number().nullable(),
  /** What the last open repaired (stale locks, broken refs …). */
  repairs: z.array(z.string()),
  /** An interrupted rollback this engine finished, or one still waiting to be finished; null when none. */
  rollbackNotice: rollbackNoticeSchema.nullable().default(null),
})
export type StatusResult = z.infer<typeof statusResultSchema>

export const usageResultSchema = z.object({
  storeBytes: z.number(),
  looseObjects: z.number().int(),
  packs: z.number().int(),
  snapshotCount: z.number().int(),
})
export type UsageResult = z.infer<typeof usageResultSchema>

export const pruneOptionsSchema = z
  .object({
    /** Remove manual-* and safety-* snapshots older than this many days. */
    olderThanDays: z.number().min(0).optional(),
    /** Keep only the newest N manual-* and N safety-* snapshots. */
    keepLast: z.number().int().min(0).optional(),
    dryRun: z.boolean().optional(),
  })
  .strict()
export type PruneOptions = z.infer<typeof pruneOptionsSchema>

export const pruneResultSchema = z.object({
  removedTags: z.array(z.string()),
  bytesBefore: z.number(),
  bytesAfter: z.number(),
  dryRun: z.boolean(),
})
export type PruneResult = z.infer<typeof pruneResultSchema>

/** What the timeline's list is asked for: a page of one filter, newest first. */
export const listOptionsSchema = z
  .object({
    offset: z.number().int().min(0).optional(),
    limit: z.number().int().min(1).max(1000).optional(),
    kind: snapshotKindSchema.optional(),
    task: z.number().int().positive().optional(),
    /** Only the snapshots that belong to a task (the timeline's "Tasks only"). */
    tasksOnly: z.boolean().optional(),
    /** Words the message (or the tag) contains, case-insensitive. */
    search: z.string().max(200).optional(),
  })
  .strict()
export type ListOptions = z.infer<typeof listOptionsSchema>

export const listResultSchema = z.object({ items: z.array(snapshotMetaSchema), total: z.number().int() })
export type ListResult = z.infer<typeof listResultSchema>

/**
 * The background baseline of a project opened without snapshots (DESIGN.md §5): `done` files of an estimated
 * `total` (null while the files are still being listed).
 */
export const baselineProgressSchema = z.object({
  phase: z.enum(['listing', 'reading', 'saving']),
  done: z.number().int(),
  total: z.number().int().nullable(),
})
export type BaselineProgress = z.infer<typeof baselineProgressSchema>

export const snapshotCalls = defineCalls({
  'snapshots.save': {
    mutates: true,
    input: z
      .object({
        projectId,
        kind: snapshotKindSchema.default('manual'),
        task: z.number().int().positive().optional(),
        message: z.string().max(10_000).optional(),
      })
      .strict(),
    output: snapshotMetaSchema,
  },
  /** A page of the project's snapshots from the app's SQLite mirror of the store, newest first. */
  'snapshots.list': {
    input: listOptionsSchema.extend({ projectId }).strict(),
    output: listResultSchema,
  },
  'snapshots.diff': {
    /** `against` omitted: compare with the working tree. */
    input: z.object({ projectId, target: tag, against: tag.optional() }).strict(),
    output: diffResultSchema,
  },
  'snapshots.fileDiff': {
    input: z
      .object({
        projectId,
        target: tag,
        against: tag.optional(),
        path,
        /** For a rename: where the file was on the `target` side (the new side is read at `path`). */
        oldPath: path.optional(),
        maxBytes: z
          .number()
          .int()
          .positive()
          .max(50 * 1024 * 1024)
          .optional(),
      })
      .strict(),
    output: fileDiffSchema,
  },
  /** Lines added and deleted per changed file (from `snapshots.diff`'s entries), for the Compare view's list. */
  'snapshots.diffStats': {
    input: z
      .object({
        projectId,
        target: tag,
        against: tag.optional(),
        files: z.array(z.object({ path, oldPath: path.optional() }).strict()).max(1000),
      })
      .strict(),
    output: z.object({ files: z.array(diffStatSchema) }),
  },
  'snapshots.status': {
    input: projectOnly,
    output: statusResultSchema,
  },
  'snapshots.show': {
    input: z.object({ projectId, tag, path }).strict(),
    output: z.object({
      tag: z.string(),
      path: z.string(),
      size: z.number(),
      binary: z.boolean(),
      encoding: z.enum(['utf8', 'base64']),
      content: z.string(),
    }),
  },
  'snapshots.previewRollback': {
    input: z.object({ projectId, tag }).strict(),
    output: rollbackReportSchema,
  },
  'snapshots.rollback': {
    mutates: true,
    input: z.object({ projectId, tag }).strict(),
    output: rollbackReportSchema,
  },
  'snapshots.undo': {
    mutates: true,
    input: projectOnly,
    output: rollbackReportSchema.extend({ undid: z.string() }),
  },
  /**
   * Finishes a rollback that was interrupted and could not be finished on its own (status' rollbackNotice,
   * state `interrupted`): a safety snapshot of the files as they are, then the rollback to its target.
   */
  'snapshots.finishRollback': {
    mutates: true,
    input: projectOnly,
    output: rollbackReportSchema,
  },
  /** The user has read the notice of a finished interrupted rollback: it is not shown again. */
  'snapshots.dismissRollbackNotice': {
    input: projectOnly,
    output: z.object({ dismissed: z.boolean() }),
  },
  'snapshots.usage': {
    input: projectOnly,
    output: usageResultSchema,
  },
  /** Deletes old manual and safety snapshots (never task snapshots or baselines) and drops unused data. */
  'snapshots.prune': {
    mutates: true,
    input: pruneOptionsSchema.extend({ projectId }).strict(),
    output: pruneResultSchema,
  },
  /** The background baseline running for the project, or null when none is. */
  'snapshots.baselineState': {
    input: projectOnly,
    output: baselineProgressSchema.nullable(),
  },
  /** Stops the background baseline; a task started meanwhile then saves everything itself. */
  'snapshots.cancelBaseline': {
    input: projectOnly,
    output: z.object({ cancelled: z.boolean() }),
  },
})

export const snapshotEvents = defineEvents({
  'snapshot.created': z.object({ projectId, snapshot: snapshotMetaSchema }),
  'snapshot.rolledBack': z.object({ projectId, report: rollbackReportSchema, undo: z.boolean() }),
  'snapshot.pruned': z.object({ projectId, removedTags: z.array(z.string()) }),
  /** The background baseline's progress, a few times a second while it runs. */
  'snapshot.baselineProgress': z.object({ projectId, progress: baselineProgressSchema }),
  'snapshot.baselineFinished': z.object({
    projectId,
    /** skipped: the project had snapshots by then (a task's own), or a task was running. */
    outcome: z.enum(['saved', 'cancelled', 'skipped', 'failed']),
    tag: z.string().nullable(),
    message: z.string(),
  }),
})
