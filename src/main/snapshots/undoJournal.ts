import { rm } from 'node:fs/promises'
import { join } from 'node:path'
import { writeFileAtomic } from '../workspace'
import { readJsonObject } from './jsonFile'

/**
 * `undo` rolls back to the safety snapshot of the last rollback, and that rollback takes a safety snapshot of its
 * own. Interrupted midway, the newest safety snapshot is then the undo's own, pointing back at the state before
 * the undo: a retry would go the wrong way. The journal, written before the undo starts and removed when it ends,
 * lets the retry finish in the same direction.
 */
export interface UndoJournal {
  /** The safety snapshot the undo is going to. */
  undoing: string
  startedAt: number
}

const file = (gitDir: string) => join(gitDir, 'ralph-undo.json')

export async function readUndoJournal(gitDir: string): Promise<UndoJournal | null> {
  // None, or torn by a crash while written (then the undo had not started).
  const parsed = await readJsonObject<UndoJournal>(file(gitDir))
  return typeof parsed?.undoing === 'string'
    ? { undoing: parsed.undoing, startedAt: parsed.startedAt ?? 0 }
    : null
}

export function writeUndoJournal(gitDir: string, journal: UndoJournal): Promise<void> {
  return writeFileAtomic(file(gitDir), JSON.stringify(journal))
}

export function clearUndoJournal(gitDir: string): Promise<void> {
  return rm(file(gitDir), { force: true })
}
