import { z } from 'zod'
import { defineCalls, defineEvents } from './define'

const projectId = z.number().int().positive()
const tag = z.string().min(1).max(200)
const path = z.string().min(1).max(4096)

export const snapshotKindSchema = z.enum(['task-pre', 'task-post', 'manual', 'stall-recovery', 'safety'])

export const skippedFileSchema = z.object({
  path: z.string(),
  reason: z.enum(['too-large', 'nested-repo', 'unreadable']),
  size: z.number().optional(),
})

const counts = { added: z.number().int(), modified: z.number().int(), deleted: z.number().int() }

export const snapshotMetaSchema = z.object({
  tag: z.string(),
  commit: z.string(),
  kind: snapshotKindSchema,
  task: z.number().int().nullable(),
  message: z.string(),
  createdAt: z.number(),
  ...counts,
  skipped: z.array(skippedFileSchema),
  skippedTotal: z.number().int(),
  durationMs: z.number(),
  rollbackTarget: z.string().nullable(),
})
export type SnapshotMetaDto = z.infer<typeof snapshotMetaSchema>

export const diffEntrySchema = z.object({
  status: z.enum(['added', 'modified', 'deleted', 'renamed', 'typechange']),
  path: z.string(),
  oldPath: z.string().optional(),
  similarity: z.number().optional(),
})

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
  tooLarge: z.boolean(),
  content: z.string().nullable(),
})

export const rollbackReportSchema = z.object({
  preview: z.boolean(),
  target: z.string(),
  targetCommit: z.string(),
  safetyTag: z.string().nullable(),
  written: z.array(z.object({ path: z.string(), change: z.enum(['added', 'modified', 'typechange']) })),
  deleted: z.array(z.string()),
  leftAlone: z.array(
    z.object({ path: z.string(), reason: z.enum(['ignored-or-skipped', 'nested-repo', 'in-the-way']) }),
  ),
  skipped: z.array(skippedFileSchema),
  /** Files the target snapshot skipped (too large, unreadable) that are gone from disk: they cannot come back. */
  neverSnapshotted: z.array(skippedFileSchema.extend({ message: z.string() })).default([]),
  durationMs: z.number(),
})
export type RollbackReportDto = z.infer<typeof rollbackReportSchema>

export const snapshotCalls = defineCalls({
  'snapshots.save': {
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
  'snapshots.list': {
    input: z
      .object({
        projectId,
        offset: z.number().int().min(0).optional(),
        limit: z.number().int().min(1).max(1000).optional(),
        kind: snapshotKindSchema.optional(),
        task: z.number().int().positive().optional(),
      })
      .strict(),
    output: z.object({ items: z.array(snapshotMetaSchema), total: z.number().int() }),
  },
  'snapshots.diff': {
    /** `against` omitted: compare with the working tree. */
    input: z.object({ projectId, target: tag, against: tag.optional() }).strict(),
    output: z.object({
      from: z.string(),
      to: z.string().nullable(),
      entries: z.array(diffEntrySchema),
      counts: z.object({ ...counts, renamed: z.number().int() }),
    }),
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
    output: z.object({
      path: z.string(),
      from: z.string(),
      to: z.string().nullable(),
      old: fileSideSchema,
      new: fileSideSchema,
    }),
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
    input: z.object({ projectId }).strict(),
    output: z.object({
      position: snapshotMetaSchema.nullable(),
      latest: snapshotMetaSchema.nullable(),
      dirty: z.boolean(),
      changes: z.object(counts),
      trackedFiles: z.number().int(),
      snapshotCount: z.number().int(),
      lastSnapshotAt: z.number().nullable(),
      repairs: z.array(z.string()),
    }),
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
    input: z.object({ projectId, tag }).strict(),
    output: rollbackReportSchema,
  },
  'snapshots.undo': {
    input: z.object({ projectId }).strict(),
    output: rollbackReportSchema.extend({ undid: z.string() }),
  },
  'snapshots.usage': {
    input: z.object({ projectId }).strict(),
    output: z.object({
      storeBytes: z.number(),
      looseObjects: z.number().int(),
      packs: z.number().int(),
      snapshotCount: z.number().int(),
    }),
  },
  'snapshots.prune': {
    input: z
      .object({
        projectId,
        olderThanDays: z.number().min(0).optional(),
        keepLast: z.number().int().min(0).optional(),
        dryRun: z.boolean().optional(),
      })
      .strict(),
    output: z.object({
      removedTags: z.array(z.string()),
      bytesBefore: z.number(),
      bytesAfter: z.number(),
      dryRun: z.boolean(),
    }),
  },
})

export const snapshotEvents = defineEvents({
  'snapshot.created': z.object({ projectId, snapshot: snapshotMetaSchema }),
  'snapshot.rolledBack': z.object({ projectId, report: rollbackReportSchema, undo: z.boolean() }),
  'snapshot.pruned': z.object({ projectId, removedTags: z.array(z.string()) }),
})
