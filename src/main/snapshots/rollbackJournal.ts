import { rm } from 'node:fs/promises'
import { join } from 'node:path'
import type { RollbackNotice } from '../../shared/api/snapshots'
import { writeFileAtomic } from '../workspace'
import { readJsonObject } from './jsonFile'

/**
 * A rollback rewrites many files one after another; killed midway (kill -9, a power cut) it leaves a mix of two
 * snapshots. The journal is written once the safety snapshot is saved and before the first file is touched, and
 * removed when the rollback is done: whoever opens the store next finds it and finishes the rollback, or tells the
 * user it was interrupted (engine.ts, recoverRollback). Like the undo journal, it lives in the store, out of the
 * snapshotted tree.
 */
export interface RollbackJournal {
  /** The tag being rolled back to, and its commit. */
  target: string
  targetCommit: string
  /** The safety snapshot of the tree before the rollback began (what undo returns to). */
  safetyTag: string
  safetyCommit: string
  startedAt: number
  /** True when the rollback is an undo (its target is the safety snapshot of an earlier rollback). */
  undo: boolean
  /**
   * Set when the move applies a lane's merged task (applyTask.ts), not a rollback: `safetyTag` is then the task's
   * `task-N-pre`, `target` the `task-N-post` to come, and finishing it takes that post snapshot.
   */
  apply?: { task: number; postMessage: string }
}

const file = (gitDir: string) => join(gitDir, 'ralph-rollback.json')

const isJournal = (v: Partial<RollbackJournal>): v is RollbackJournal =>
  typeof v.target === 'string' &&
  typeof v.targetCommit === 'string' &&
  typeof v.safetyTag === 'string' &&
  typeof v.safetyCommit === 'string'

const isApply = (v: unknown): v is RollbackJournal['apply'] =>
  typeof v === 'object' &&
  v !== null &&
  Number.isInteger((v as { task?: unknown }).task) &&
  typeof (v as { postMessage?: unknown }).postMessage === 'string'

export async function readRollbackJournal(gitDir: string): Promise<RollbackJournal | null> {
  // None: no rollback was under way. Written atomically, so one that does not parse was damaged by hand:
  // nothing to finish from it.
  const parsed = await readJsonObject<RollbackJournal>(file(gitDir))
  return parsed !== null && isJournal(parsed)
    ? {
        ...parsed,
        startedAt: parsed.startedAt ?? 0,
        undo: parsed.undo === true,
        apply: isApply(parsed.apply) ? parsed.apply : undefined,
      }
    : null
}

export function writeRollbackJournal(gitDir: string, journal: RollbackJournal): Promise<void> {
  return writeFileAtomic(file(gitDir), JSON.stringify(journal))
}

export function clearRollbackJournal(gitDir: string): Promise<void> {
  return rm(file(gitDir), { force: true })
}

/**
 * The notice of an interrupted rollback that was finished, kept until a host has told the user: any engine may
 * finish it (a task's, the Queue's), and the timeline or the next `ralph snapshot` command says so.
 */
const noticeFile = (gitDir: string) => join(gitDir, 'ralph-rollback-finished.json')

export async function readFinishedNotice(gitDir: string): Promise<RollbackNotice | null> {
  const parsed = await readJsonObject<RollbackNotice>(noticeFile(gitDir))
  return parsed?.state === 'finished' &&
    typeof parsed.message === 'string' &&
    typeof parsed.target === 'string'
    ? (parsed as RollbackNotice)
    : null
}

export function writeFinishedNotice(gitDir: string, notice: RollbackNotice): Promise<void> {
  return writeFileAtomic(noticeFile(gitDir), JSON.stringify(notice))
}

export function clearFinishedNotice(gitDir: string): Promise<void> {
  return rm(noticeFile(gitDir), { force: true })
}
