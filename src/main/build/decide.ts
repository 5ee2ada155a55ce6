import type { FailReason } from '../loop'

/**
 * `ralph build`'s decisions, apart from their effects (DESIGN.md §16, seed 004 "Stuck Detection" and
 * "Notifications"): from what one attempt at a queue task ended with, what to do next. Pure, so every rule —
 * retry with the reasons, the third failure rolls back and escalates, stuck re-plans once then escalates,
 * NEEDS_HUMAN pauses, what each mode asks or tells — is unit-tested without a model, git or SQLite.
 */

export const buildModes = ['yolo', 'hybrid', 'interactive'] as const
export type BuildMode = (typeof buildModes)[number]

export interface AttemptPolicy {
  /** Failures of one task before it is rolled back and escalated (seed 004's max_retries, default 3). */
  maxFailures: number
  mode: BuildMode
}

export const DEFAULT_MAX_FAILURES = 3

/** What the build remembers about one queue task across its attempts. */
export interface TaskAttempts {
  /** Failed attempts since the task began or was re-planned (VERIFY FAILs and tasks that did not complete). */
  failures: number
  /** Attempts so far, for the events (1-based once the first starts). */
  attempts: number
  /** Whether the task has been re-planned from scratch after getting stuck (only once). */
  replanned: boolean
}

export const freshAttempts = (previousFailures = 0): TaskAttempts => ({
  failures: previousFailures,
  attempts: 0,
  replanned: false,
})

/** How one attempt ended: its lifecycle, then (when it completed) its verification. */
export type AttemptOutcome =
  | { kind: 'verified'; outcome: 'PASS' }
  | { kind: 'verified'; outcome: 'FAIL'; feedback: string; reason: string }
  | { kind: 'verified'; outcome: 'NEEDS_HUMAN'; feedback: string }
  /** The lifecycle ended without a post snapshot (gates, iterations, a stall, an error, a provider …). */
  | { kind: 'task-failed'; reason: FailReason; message: string }
  | { kind: 'needs-clarification'; question: string }

export type NotificationEvent =
  | 'escalation'
  | 'needs-human'
  | 'approval'
  | 'budget-warn'
  | 'budget-stop'
  | 'complete'

export type BuildAction =
  /** PASS: mark the task done and accept it. */
  | { type: 'accept' }
  /** Verified, but a person decides: mark it done and leave it for `ralph task accept|reject`. */
  | { type: 'mark-done' }
  /** FAIL: done, then rejected (tombstone, back to pending) with the reason. */
  | { type: 'reject'; reason: string }
  /** Another attempt, the reasons in its feedback. */
  | { type: 'retry'; feedback: string }
  /** Stuck: another attempt from scratch, with a fresh plan. */
  | { type: 'replan'; feedback: string }
  /** Back to the task's first pre-snapshot: every attempt's work undone (the rollback's safety snapshot keeps it). */
  | { type: 'rollback' }
  /** Hand the task to a person for good: no later build starts it until the user retries, edits or removes it. */
  | { type: 'escalate'; kind: 'failures' | 'stuck'; failures: number; message: string }
  | { type: 'notify'; event: NotificationEvent; message: string }
  /** Wait for a person before going on (a terminal asks; elsewhere the build pauses). */
  | { type: 'ask-approval'; message: string }
  /** The build stops here and says why. */
  | { type: 'pause'; status: 'paused' | 'escalated'; message: string }
  | { type: 'stop'; status: 'failed' | 'stopped'; message: string }
  /** On to the next task of the queue. */
  | { type: 'next' }

export interface AttemptDecision {
  attempts: TaskAttempts
  actions: BuildAction[]
}

/** What the user is told to do about an escalated task (one wording for the build, the CLI and the panel). */
export function escalationHelp(taskId: string): string {
  return (
    `Retry it with \`ralph build --retry ${taskId}\` (or "Retry" in the Queue panel), after editing its notes or ` +
    `criteria if they were the problem (an edit in the panel clears the escalation too), or remove the task.`
  )
}

const STUCK: ReadonlySet<FailReason> = new Set(['stall', 'no-progress'])
/** The attempt could not be carried out at all: retrying cannot help, the build stops. */
const FATAL: ReadonlySet<FailReason> = new Set(['provider', 'usage-limit', 'error'])

export function decideAttempt(
  taskId: string,
  attempts: TaskAttempts,
  outcome: AttemptOutcome,
  policy: AttemptPolicy,
): AttemptDecision {
  switch (outcome.kind) {
    case 'verified':
      if (outcome.outcome === 'PASS') {
        if (policy.mode === 'interactive') {
          return {
            attempts,
            actions: [
              { type: 'mark-done' },
              { type: 'ask-approval', message: `${taskId} passed verification. Accept it and go on?` },
            ],
          }
        }
        return { attempts, actions: [{ type: 'accept' }, { type: 'next' }] }
      }
      if (outcome.outcome === 'NEEDS_HUMAN') {
        const message = `${taskId} needs a person: verification could not decide every criterion. Accept it with \`ralph task accept ${taskId}\` or reject it with \`ralph task reject "reason" --id ${taskId}\`, then run \`ralph build\` again.`
        return {
          attempts,
          actions: [
            { type: 'mark-done' },
            { type: 'notify', event: 'needs-human', message: `${message}\n\n${outcome.feedback}` },
            { type: 'pause', status: 'paused', message },
          ],
        }
      }
      return failed(taskId, attempts, outcome.feedback, outcome.reason, policy, [
        { type: 'reject', reason: outcome.reason },
      ])
    case 'needs-clarification': {
      const message = `${taskId} needs a clarification before it can be built: ${outcome.question} Add it to the task's notes (\`ralph task edit ${taskId} --notes "…"\`) and run \`ralph build\` again.`
      return {
        attempts,
        actions: [
          { type: 'notify', event: 'needs-human', message },
          { type: 'pause', status: 'paused', message },
        ],
      }
    }
    case 'task-failed':
      if (outcome.reason === 'stopped') {
        return { attempts, actions: [{ type: 'stop', status: 'stopped', message: outcome.message }] }
      }
      if (FATAL.has(outcome.reason)) {
        return { attempts, actions: [{ type: 'stop', status: 'failed', message: outcome.message }] }
      }
      if (STUCK.has(outcome.reason)) return stuck(taskId, attempts, outcome.message)
      return failed(
        taskId,
        attempts,
        `# The last attempt failed\n\n${outcome.message}\n`,
        outcome.message,
        policy,
        [],
      )
  }
}

/**
 * A failed attempt: retry with the reasons (`feedback`, written for the next attempt), or on the last allowed
 * failure roll back and escalate, saying why the last attempt failed (`why`, written for a person).
 */
function failed(
  taskId: string,
  attempts: TaskAttempts,
  feedback: string,
  why: string,
  policy: AttemptPolicy,
  first: BuildAction[],
): AttemptDecision {
  const failures = attempts.failures + 1
  const next = { ...attempts, failures }
  if (failures < policy.maxFailures)
    return { attempts: next, actions: [...first, { type: 'retry', feedback }] }
  const message = `${taskId} failed ${failures} times; the project was rolled back to before its first attempt and the task waits for a person: no build starts it again until you decide. ${escalationHelp(taskId)}\n\nThe last attempt failed: ${why.trim()}`
  return {
    attempts: next,
    actions: [
      ...first,
      { type: 'rollback' },
      { type: 'escalate', kind: 'failures', failures, message },
      { type: 'notify', event: 'escalation', message },
      { type: 'pause', status: 'escalated', message },
    ],
  }
}

/**
 * Stuck (the lifecycle's stall detection rolled the attempt back): the first time, the plan is thrown away and the
 * task starts again from scratch with its failure count reset (seed 004 "Plan Disposability"); the second time,
 * a person takes over.
 */
function stuck(taskId: string, attempts: TaskAttempts, why: string): AttemptDecision {
  if (!attempts.replanned) {
    return {
      attempts: { ...attempts, failures: 0, replanned: true },
      actions: [
        {
          type: 'replan',
          feedback: `# Re-plan from scratch\n\nAn earlier attempt at this task got stuck and was rolled back: ${why}\nDo not repeat its approach: read the task again, write a new plan for it, then build that.\n`,
        },
      ],
    }
  }
  const message = `${taskId} got stuck again after a re-plan from scratch, so it waits for a person: no build starts it again until you decide. ${escalationHelp(taskId)} Why: ${why}`
  return {
    attempts,
    actions: [
      { type: 'rollback' },
      { type: 'escalate', kind: 'stuck', failures: attempts.failures, message },
      { type: 'notify', event: 'escalation', message },
      { type: 'pause', status: 'escalated', message },
    ],
  }
}

// ---- budgets ----

// The budget arithmetic lives in ./budget, shared with a chat task's cost cap (loop/costCap.ts).
