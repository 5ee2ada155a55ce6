// Snapshot kinds and tag names without zod: the CLI's snapshot commands read tags on every start, and loading zod
// costs about as much as starting node. The contract (api/snapshots.ts) builds its schema from this list.

/** Kinds of snapshot, each with its own tag scheme (DESIGN.md §5). */
export const snapshotKinds = [
  'task-pre',
  'task-post',
  'manual',
  'stall-recovery',
  'safety',
  'baseline',
] as const
export type SnapshotKind = (typeof snapshotKinds)[number]

/**
 * The one place snapshot tag names are built and read (DESIGN.md §5): the core's snapshot module and the renderer
 * both go through these. A taken name gets `-2`, `-3` … (see the core's uniqueTagName), never reused.
 */
export const snapshotTags = {
  taskPre: (task: number): string => `task-${task}-pre`,
  taskPost: (task: number): string => `task-${task}-post`,
  stallRecovery: (task: number): string => `stall-${task}-recovery`,
  manual: (nowMs: number): string => `manual-${Math.floor(nowMs / 1000)}`,
  safety: (nowMs: number): string => `safety-${Math.floor(nowMs / 1000)}`,
  baseline: (nowMs: number): string => `baseline-${Math.floor(nowMs / 1000)}`,
}

const TAG_KINDS: [RegExp, SnapshotKind][] = [
  [/^task-\d+-pre(-\d+)?$/, 'task-pre'],
  [/^task-\d+-post(-\d+)?$/, 'task-post'],
  [/^stall-\d+-recovery(-\d+)?$/, 'stall-recovery'],
  [/^manual-\d+(-\d+)?$/, 'manual'],
  [/^safety-\d+(-\d+)?$/, 'safety'],
  [/^baseline-\d+(-\d+)?$/, 'baseline'],
]

const TASK_TAG = /^task-(\d+)-(?:pre|post)(?:-\d+)?$/

/** The task a task-N-pre or task-N-post tag (a `-2` … suffix included) belongs to; null for any other tag. */
export function taskOfTag(tag: string): number | null {
  const m = TASK_TAG.exec(tag)
  return m ? Number(m[1]) : null
}

/** The kind a tag name belongs to; null for a name none of our schemes makes. */
export function kindOfTag(tag: string): SnapshotKind | null {
  for (const [pattern, kind] of TAG_KINDS) if (pattern.test(tag)) return kind
  return null
}

/** A snapshot in words: "before Task 3" for task-3-pre, "after Task 3" for task-3-post, else its tag. */
export function tagWords(tag: string): string {
  const task = taskOfTag(tag)
  if (task === null) return tag
  return /-pre(-\d+)?$/.test(tag) ? `before Task ${task}` : `after Task ${task}`
}
