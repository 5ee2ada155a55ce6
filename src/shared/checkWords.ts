import type { CriterionKind, VerdictAnswer, VerifyOutcome } from './verdicts'

/**
 * The loop's and verification's names for its checks, in the words a person reads (issue 37): one table for the
 * task card's gate chips and the Queue's verdicts, each with what it checks for a tooltip. The raw name stays for
 * detail on demand (the loop's logs and the CLI use it).
 */

export interface CheckWords {
  /** A short label: "Summary written", "Tests". */
  label: string
  /** What the check looks at, one sentence. */
  hint: string
}

const known: Record<string, CheckWords> = {
  // The loop's quality gates (DESIGN.md §11).
  'has-summary': {
    label: 'Summary written',
    hint: 'Checks that Ralph wrote a summary of what it changed and how it checked it, before the task can count as done.',
  },
  'changes-made': {
    label: 'Files changed',
    hint: "Checks that the task changed at least one of the project's files (Ralph's own .ralph/ files do not count).",
  },
  'scope-validation': {
    label: 'Kept to the plan',
    hint: 'Checks the changes against what the task asked for: what it had to add or fix, and what had to stay as it was.',
  },
  scope: { label: 'Only files in scope', hint: 'Checks that only the files in the task’s scope changed.' },
  'plan-diff': {
    label: 'Plan compared',
    hint: 'Compares the plan (.ralph/plan.tsx) with what changed. For information: it never blocks a task.',
  },
  length: {
    label: 'Sensible file sizes',
    hint: 'Checks that no file grew or shrank far more than the task needs.',
  },
  // Verification's deterministic checks (DESIGN.md §16) and the project's commands.
  test: { label: 'Tests', hint: "Runs the project's test command on the task's changes." },
  lint: { label: 'Lint', hint: "Runs the project's lint command on the task's changes." },
  build: { label: 'Build', hint: "Runs the project's build command on the task's changes." },
  typecheck: { label: 'Type check', hint: "Runs the project's type check on the task's changes." },
  'diff-size': {
    label: 'Size of the change',
    hint: 'Checks that the change stays within a few times the lines the task was expected to need.',
  },
  'blocked-paths': {
    label: 'Protected files untouched',
    hint: 'Checks that the task changed no protected file (.env, keys, credentials).',
  },
  secrets: { label: 'No secrets added', hint: 'Checks the added lines for passwords, tokens and keys.' },
}

/** A check's words: its own, an acceptance criterion's ("Criterion 2" for AC2), or for another project command. */
export function checkWords(name: string): CheckWords {
  const found = known[name]
  if (found) return found
  const criterion = /^AC(\d+)$/i.exec(name)
  if (criterion)
    return { label: `Criterion ${criterion[1]}`, hint: `Acceptance criterion ${criterion[1]} of the task.` }
  return {
    label: `“${name}” command`,
    hint: `Runs the project's "${name}" command after the task's changes; the task is done only when it passes.`,
  }
}

/** A gate's result: "passed", "warning", "failed" (a gate's severity as the loop records it). */
export function gateResultWord(severity: string): string {
  return severity === 'pass'
    ? 'passed'
    : severity === 'warning'
      ? 'warning'
      : severity === 'failure'
        ? 'failed'
        : severity
}

/** What a gate's result means for the task, for a tooltip. */
export function gateResultHint(severity: string): string {
  return severity === 'pass'
    ? 'It passed.'
    : severity === 'warning'
      ? 'It passed with a warning (it does not block the task).'
      : severity === 'failure'
        ? 'It failed: Ralph must fix this before the task is done.'
        : `It ended as "${severity}".`
}

/** A criterion's verdict: "Met", "Not met", "Needs you". */
export const answerWords: Record<VerdictAnswer, string> = {
  YES: 'Met',
  NO: 'Not met',
  NEEDS_HUMAN: 'Needs you',
}

/** A verification's outcome: "Passed", "Failed", "Needs your decision". */
export const outcomeWords: Record<VerifyOutcome, string> = {
  PASS: 'Passed',
  FAIL: 'Failed',
  NEEDS_HUMAN: 'Needs your decision',
}

/** How a criterion is checked, short and on hover. */
export const kindWords: Record<CriterionKind, CheckWords> = {
  DET: { label: 'Command', hint: 'Checked by running a command: the same answer every time.' },
  LLM: { label: 'Model', hint: 'Judged by a model reading the change.' },
}

/** A task's type as the parser gives it (fresh, mutation …), in words. */
export function taskTypeWords(type: string): CheckWords {
  switch (type) {
    case 'fresh':
      return { label: 'New work', hint: 'Builds something new: there was no plan to change yet.' }
    case 'mutation':
      return {
        label: 'Change',
        hint: 'Changes what exists: the plan is updated with what to add, change or keep.',
      }
    case 'bugfix':
      return { label: 'Bug fix', hint: 'Fixes a bug: no planning step, straight to the fix.' }
    case 'needs-clarification':
      return { label: 'Question first', hint: 'The request was unclear: Ralph asks before doing anything.' }
    default:
      return { label: type, hint: `The task parser's type: ${type}.` }
  }
}

/** The Queue's build modes, as a person chooses between them. */
export const buildModeWords: Record<'hybrid' | 'yolo' | 'interactive', CheckWords> = {
  hybrid: {
    label: 'Stop when unsure',
    hint: 'Accepts each task that passes its checks; pauses when a check needs you or a task keeps failing.',
  },
  yolo: {
    label: 'Never stop',
    hint: 'Accepts each task that passes its checks and goes on; tells you only when a task keeps failing.',
  },
  interactive: {
    label: 'Ask before accepting',
    hint: 'Asks you to accept or reject each task that passed its checks, with its changes to look at.',
  },
}
