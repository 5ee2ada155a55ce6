import type { SnapshotMetaDto } from '../../../../shared/api/snapshots'

export type TimelineFilter = 'tasks' | 'everything'

/** One row of the timeline: a snapshot, with the task header it opens when it starts a task's run of entries. */
export interface TimelineRow {
  snapshot: SnapshotMetaDto
  /** "Task 2" when this is the first (newest) entry of a run of the same task's entries. */
  group: string | null
}

/**
 * The snapshots (newest first) as rows: "Tasks only" keeps the entries that belong to a task; each run of
 * consecutive entries of one task gets that task's header, and manual, safety and baseline entries stand where
 * they fall between them.
 */
export function timelineRows(snapshots: SnapshotMetaDto[], filter: TimelineFilter): TimelineRow[] {
  const kept = filter === 'tasks' ? snapshots.filter((s) => s.task !== null) : snapshots
  const rows: TimelineRow[] = []
  let previous: number | null = null
  for (const snapshot of kept) {
    const task = snapshot.task
    rows.push({ snapshot, group: task !== null && task !== previous ? `Task ${task}` : null })
    previous = task
  }
  return rows
}

/** "+2 ~1 -0" as words for the accessible name. */
export const changeWords = (s: { added: number; modified: number; deleted: number }): string =>
  `${s.added} added, ${s.modified} modified, ${s.deleted} deleted`

export { plural } from '../../../../shared/format'
