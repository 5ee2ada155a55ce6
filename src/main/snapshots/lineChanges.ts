import { diffLines } from 'diff'

/**
 * Past this many edits or this long, a rewrite is counted by multiset instead: a huge rewrite needs no exact
 * figure, and this runs in the core's event loop.
 */
const MAX_EDIT_LENGTH = 2_000
const TIMEOUT_MS = 50

const linesOf = (text: string | null): string[] => {
  if (!text) return []
  const lines = text.split(/\r?\n/)
  if (lines[lines.length - 1] === '') lines.pop()
  return lines
}

/**
 * Lines added and deleted between two versions of a file, as a line diff counts them (jsdiff). A very different
 * large pair is counted as the lines each side has that the other lacks: a lower bound of the exact figures.
 */
export function countLineChanges(
  oldText: string | null,
  newText: string | null,
): { additions: number; deletions: number } {
  const changes = diffLines(oldText ?? '', newText ?? '', {
    maxEditLength: MAX_EDIT_LENGTH,
    timeout: TIMEOUT_MS,
  })
  if (changes) {
    let additions = 0
    let deletions = 0
    for (const change of changes) {
      if (change.added) additions += change.count ?? 0
      else if (change.removed) deletions += change.count ?? 0
    }
    return { additions, deletions }
  }
  const counts = new Map<string, number>()
  const before = linesOf(oldText)
  const after = linesOf(newText)
  for (const line of before) counts.set(line, (counts.get(line) ?? 0) + 1)
  let common = 0
  for (const line of after) {
    const c = counts.get(line) ?? 0
    if (c > 0) {
      counts.set(line, c - 1)
      common++
    }
  }
  return { additions: after.length - common, deletions: before.length - common }
}
