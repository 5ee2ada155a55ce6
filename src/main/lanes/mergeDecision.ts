// What a lane's task does after its merge attempt: a pure decision, apart from the git that produced the outcome.

import { PLAN_PATH } from './ralphMergeRules'

/** A path that did not merge, with git's kinds of conflict (`CONFLICT (contents)`, `CONFLICT (modify/delete)` …). */
export interface MergeConflict {
  path: string
  kinds: string[]
}

/** `notes`: lane changes the `.ralph/` rules dropped (mergeLaneResult); they go into a rerun's feedback. */
export type MergeOutcome =
  | { kind: 'clean'; tree: string; commit?: string; notes?: string[] }
  | { kind: 'conflict'; conflicts: MergeConflict[]; notes?: string[] }

/** The verification of a clean merge, run again on the merged tree with a new nonce. */
export type Verdict = 'PASS' | 'FAIL'

export type NextStep =
  /** Clean as text: verify again on the merged tree before it counts. */
  | { do: 'verify-merged'; tree: string }
  /** Verified on the merged tree: apply to the integration state (and the user's folder, in merge order). */
  | { do: 'apply'; tree: string }
  /** First failure: rerun the task once in a fresh lane on the new base, with this feedback. */
  | { do: 'rerun'; feedback: string }
  /** Second failure: the task is escalated, never marked done. */
  | { do: 'escalate'; reason: string }

export interface MergeAttempt {
  /** 1 for the task's first lane, 2 for its rerun on the new base. */
  attempt: number
  outcome: MergeOutcome
  /** The verdict on the merged tree, once a clean merge was verified again. */
  verdict?: { verdict: Verdict; reason: string }
}

/** At most one rerun on the new base: the second failure escalates (issue #38). */
export const MAX_MERGE_ATTEMPTS = 2

export function nextAfterMerge(a: MergeAttempt): NextStep {
  if (!Number.isInteger(a.attempt) || a.attempt < 1) throw new RangeError(`attempt must be 1 or more`)
  const notes = a.outcome.notes?.length ? ` ${a.outcome.notes.join(' ')}` : ''
  if (a.outcome.kind === 'clean') {
    if (a.verdict === undefined) return { do: 'verify-merged', tree: a.outcome.tree }
    if (a.verdict.verdict === 'PASS') return { do: 'apply', tree: a.outcome.tree }
    return failed(a.attempt, `The verification on the merged tree said FAIL: ${a.verdict.reason}${notes}`)
  }
  return failed(a.attempt, conflictFeedback(a.outcome.conflicts) + notes)
}

function failed(attempt: number, feedback: string): NextStep {
  if (attempt >= MAX_MERGE_ATTEMPTS)
    return { do: 'escalate', reason: `Failed to merge after a rerun on the new base. ${feedback}` }
  return { do: 'rerun', feedback }
}

/** The feedback a rerun gets: which files conflicted with the work merged before it, and how. */
export function conflictFeedback(conflicts: MergeConflict[]): string {
  const shown = conflicts.slice(0, 20).map((c) => `${c.path} (${c.kinds.join(', ') || 'conflict'})`)
  const more = conflicts.length > shown.length ? ` and ${conflicts.length - shown.length} more` : ''
  const plan = conflicts.some((c) => c.path === PLAN_PATH)
    ? ` In ${PLAN_PATH} the markers of other tasks were set aside before merging, so the plan's own text ` +
      "conflicted: keep the plan changes merged before yours and make your task's changes and markers on top."
    : ''
  return (
    `Your changes conflicted with work merged before them in ${shown.join('; ')}${more}. ` +
    `The project now contains that work: redo your task on top of it.${plan}`
  )
}
