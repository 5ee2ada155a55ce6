import { isRalphOwnPath } from '../../shared/ralphFiles'
import type { ChangeCounts, DiffEntry, DiffResult } from './types'

/** No changes yet, with Ralph's own files counted apart (they are included in the totals too). */
export const noChanges = (): ChangeCounts & { ralph: NonNullable<ChangeCounts['ralph']> } => ({
  added: 0,
  modified: 0,
  deleted: 0,
  ralph: { added: 0, modified: 0, deleted: 0 },
})

/** Counts one changed file into `counts` (and into `counts.ralph` when it is one of Ralph's own). */
export function tally(counts: ChangeCounts, kind: 'added' | 'modified' | 'deleted', path: string): void {
  counts[kind]++
  if (counts.ralph && isRalphOwnPath(path)) counts.ralph[kind]++
}

/** The entries of `git diff-tree -r -z --name-status` (with or without -M): a copy counts as an addition. */
export function parseNameStatus(fields: readonly string[]): DiffEntry[] {
  const entries: DiffEntry[] = []
  for (let i = 0; i < fields.length; ) {
    const s = fields[i++]!
    const code = s[0]
    if (code === 'R' || code === 'C') {
      const oldPath = fields[i++]!
      const path = fields[i++]!
      if (code === 'R')
        entries.push({ status: 'renamed', path, oldPath, similarity: Number(s.slice(1)) || 0 })
      else entries.push({ status: 'added', path })
      continue
    }
    const path = fields[i++]!
    const status =
      code === 'A' ? 'added' : code === 'D' ? 'deleted' : code === 'T' ? 'typechange' : 'modified'
    entries.push({ status, path })
  }
  return entries
}

/** Files added, deleted and otherwise changed in `git diff-index -z --no-renames --name-status` output. */
export function countNameStatus(fields: readonly string[]): ChangeCounts {
  const counts = noChanges()
  for (let i = 0; i < fields.length; i += 2) {
    const s = fields[i]![0]
    const path = fields[i + 1] ?? ''
    tally(counts, s === 'A' ? 'added' : s === 'D' ? 'deleted' : 'modified', path)
  }
  return counts
}

/** A diff's counts by kind; a type change counts as a modification. */
export function countDiffEntries(entries: readonly DiffEntry[]): DiffResult['counts'] {
  const counts = { added: 0, modified: 0, deleted: 0, renamed: 0 }
  for (const e of entries) {
    if (e.status === 'typechange') counts.modified++
    else counts[e.status]++
  }
  return counts
}
