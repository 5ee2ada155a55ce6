import { AppError } from '../../shared/errors'
import type { RollbackNotice } from '../../shared/api/snapshots'
import type { TreeChange } from './applyChanges'
import type { RollbackJournal } from './rollbackJournal'
import type { LeftAlone, NeverSnapshotted, RollbackReport, SkipReason, SkippedFile } from './types'

// Rollback planning: what moving the tree to a snapshot writes, deletes and leaves alone, decided from the diff
// and from facts about the disk handed in (the engine gathers them, see rollbackConflicts.ts).

export interface RollbackPlan {
  neverSnapshotted: NeverSnapshotted[]
  written: RollbackReport['written']
  deleted: string[]
  leftAlone: LeftAlone[]
  skipped: RollbackReport['skipped']
  changes: TreeChange[]
}

/** Why an added path must not be written (it would overwrite something undo could not bring back), or null. */
export type ConflictCheck = (
  path: string,
  deletedSet: Set<string>,
  deletedLower: Set<string>,
) => LeftAlone['reason'] | null

/** Sorts a diff's changes into what the rollback writes, deletes and leaves alone. */
export function planChanges(
  changes: readonly TreeChange[],
  conflictFor: ConflictCheck,
): Pick<RollbackPlan, 'written' | 'deleted' | 'leftAlone'> {
  const written: RollbackPlan['written'] = []
  const deleted: string[] = []
  const added: string[] = []
  for (const c of changes) {
    if (c.status === 'D') deleted.push(c.path)
    else if (c.status === 'A') added.push(c.path)
    else written.push({ path: c.path, change: c.status === 'T' ? 'typechange' : 'modified' })
  }
  const deletedSet = new Set(deleted)
  const deletedLower = new Set(deleted.map((p) => p.toLowerCase()))
  const leftAlone: LeftAlone[] = []
  for (const path of added) {
    const reason = conflictFor(path, deletedSet, deletedLower)
    if (reason) leftAlone.push({ path, reason })
    else written.push({ path, change: 'added' })
  }
  written.sort((a, b) => (a.path < b.path ? -1 : 1))
  return { written, deleted, leftAlone }
}

/** Why a skipped file was never snapshotted, in the rollback preview's words. */
const NEVER_SNAPSHOTTED_WHY: Record<SkipReason, string> = {
  'too-large': 'over the size cap',
  unreadable: 'unreadable',
  'nested-repo': 'a nested repository',
  credentials: 'a credential store, which is never stored',
}

/**
 * Files the target snapshot had to skip (over the size cap, unreadable, nested repos) that are gone from disk:
 * the rollback cannot bring them back, and says so instead of reporting plain success.
 */
export function neverSnapshottedOf(
  skipped: readonly SkippedFile[],
  onDisk: (path: string) => boolean,
): NeverSnapshotted[] {
  const out: NeverSnapshotted[] = []
  for (const s of skipped) {
    if (onDisk(s.path)) continue
    const size = s.size === undefined ? '' : ` (${formatBytes(s.size)})`
    const why = NEVER_SNAPSHOTTED_WHY[s.reason]
    out.push({
      ...s,
      message: `${s.path}${size} was never snapshotted (${why}) and is no longer on disk: the rollback cannot bring it back.`,
    })
  }
  return out
}

/** "6 MB", "12.5 MB", "300 KB". */
export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${Number((bytes / 1024 / 1024).toFixed(1))} MB`
  if (bytes >= 1024) return `${Math.round(bytes / 1024)} KB`
  return `${bytes} bytes`
}

export const rollbackWhat = (j: RollbackJournal): string =>
  j.apply
    ? `Applying task ${j.apply.task}'s merged work`
    : j.undo
      ? `An undo (the rollback to ${j.target})`
      : `A rollback to ${j.target}`

export function interruptedNotice(journal: RollbackJournal, reason: string): RollbackNotice {
  return {
    ...{ state: 'interrupted', target: journal.target, safetyTag: journal.safetyTag },
    ...{ undo: journal.undo, startedAt: journal.startedAt, reason },
    message:
      `${rollbackWhat(journal)} was interrupted, and the project is partly at ${journal.target}: ${reason} ` +
      'Finish rollback (ralph snapshot finish-rollback) takes a safety snapshot of the files as they are and ' +
      `then restores ${journal.target}; ${journal.safetyTag} holds the files from before it.`,
  }
}

export function damagedError(tag: string, missing: number): AppError {
  return new AppError(
    'not-found',
    `Snapshot ${tag} is damaged: ${missing} of the objects it needs are missing from .ralph/snapshots.git ` +
      '(deleted outside Ralph), so it cannot be restored and no file was changed. Roll back to another ' +
      'snapshot instead (each is checked the same way before it is restored); new snapshots are not affected.',
    { tag, damaged: [tag], missingObjects: missing },
  )
}

/** Whether an interrupted rollback's finished part matches its plan; the reason it cannot be finished if not. */
export function tornFiles(done: readonly TreeChange[], planned: readonly TreeChange[]): string[] | string {
  const byPath = new Map(planned.map((c) => [c.path, c]))
  const torn: string[] = []
  for (const c of done) {
    const p = byPath.get(c.path)
    if (!p) return `${c.path} changed since, and the rollback does not change it.`
    if (p.newSha !== c.newSha || p.newMode !== c.newMode) torn.push(c.path)
  }
  if (torn.length > 1) {
    return (
      `${torn.length} files (${torn.slice(0, 3).join(', ')}${torn.length > 3 ? ', …' : ''}) match neither ` +
      'snapshot, so they may hold changes made since.'
    )
  }
  return torn
}
