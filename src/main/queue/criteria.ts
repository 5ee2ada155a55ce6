import type { Criterion } from '../../shared/queue'
import type { CriterionKind } from '../../shared/verdicts'

const TAG = /^(DET|LLM)\s*:\s*/i
const BULLET = /^(?:[-*+]|\d+[.)])\s+/

/**
 * A task's acceptance criteria as stored: seed 001 files hold one string (one criterion per line), this
 * version writes an array. Either way each non-empty line is one criterion; list bullets are not part of it.
 */
export function criterionLines(accept: string | readonly string[] | undefined): string[] {
  if (accept === undefined) return []
  const items = typeof accept === 'string' ? [accept] : accept
  return items
    .flatMap((item) => item.split(/\r?\n/))
    .map((line) => line.trim().replace(BULLET, '').trim())
    .filter((line) => line !== '')
}

/** Numbers criteria AC1, AC2 … and reads their DET:/LLM: tag; an untagged one counts as LLM (the caller warns). */
export function parseCriteria(accept: string | readonly string[] | undefined): Criterion[] {
  return criterionLines(accept).map((line, i) => {
    const m = TAG.exec(line)
    const ref = `AC${i + 1}`
    if (!m) return { ref, kind: 'LLM', text: line, tagged: false }
    return {
      ref,
      kind: m[1]!.toUpperCase() as CriterionKind,
      text: line.slice(m[0].length).trim(),
      tagged: true,
    }
  })
}

export function untaggedWarning(taskId: string, c: Criterion): string {
  return `${taskId} ${c.ref} has no DET: or LLM: tag, so it counts as LLM: (a model judges it). Start it with "DET: " if a command can check it.`
}
