import { plural } from '../../../../shared/format'
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

type Counts = { added: number; modified: number; deleted: number }

/**
 * The user's files and Ralph's own (.ralph/) apart (#26): the record's totals include Ralph's, so the user's are
 * the totals minus them. A record written before the split was kept counts everything as the user's.
 */
export function splitCounts(s: Counts & { ralph?: Counts }): {
  user: Counts
  ralph: Counts
  ralphTotal: number
} {
  const ralph = s.ralph ?? { added: 0, modified: 0, deleted: 0 }
  const user = {
    added: Math.max(0, s.added - ralph.added),
    modified: Math.max(0, s.modified - ralph.modified),
    deleted: Math.max(0, s.deleted - ralph.deleted),
  }
  return { user, ralph, ralphTotal: ralph.added + ralph.modified + ralph.deleted }
}

/** "2 added, 1 changed": the kinds that occur, in plain words ("" when none). */
export function kindWords(c: Counts): string {
  return [
    c.added ? `${c.added} added` : '',
    c.modified ? `${c.modified} changed` : '',
    c.deleted ? `${c.deleted} deleted` : '',
  ]
    .filter(Boolean)
    .join(', ')
}

/** "No files changed", "1 file added", "3 files changed: 2 added, 1 deleted": the user's files in a row. */
export function changeWords(c: Counts): string {
  const total = c.added + c.modified + c.deleted
  if (total === 0) return 'No files changed'
  const only = [c.added, c.modified, c.deleted].filter(Boolean).length === 1
  if (only) return `${plural(total, 'file')} ${kindWords(c).replace(/^\d+ /, '')}`
  return `${plural(total, 'file')} changed: ${kindWords(c)}`
}

/** The quiet mark beside the user's counts when Ralph's own files changed too; the detail is `ralphWords`. */
export const RALPH_MARK = 'and Ralph’s own files'

/** Ralph's own files (.ralph/) a change touched, for its tooltip and the row's name: how many, of which kinds. */
export const ralphWords = (ralph: Counts): string => {
  const total = ralph.added + ralph.modified + ralph.deleted
  return `${plural(total, 'file')} of Ralph’s own (.ralph/: its state, plan and logs): ${kindWords(ralph)}`
}

export { plural }
