import type { LoopEvent } from '../../shared/loopEvents'
import type { GateResult } from './gates'
import type { PlanCheck } from './phaseGate'
import type { LoopConfig } from './ralphState'
import type { StallVerdict } from './stall'

/**
 * The loop's decisions, apart from their effects: from the counters the loop keeps and what one step of an
 * iteration found, the actions to take. Pure and synchronous, so every rule (gate attempts, the phase guard, stall
 * recovery then rollback, the iteration limit) is unit-tested without a model, git or SQLite; `runIterations`
 * gathers the facts and carries the actions out in order.
 */

export type FailReason = Extract<LoopEvent, { type: 'task.failed' }>['reason']

/** What the loop remembers between iterations. */
export interface LoopCounters {
  /** Gate runs that failed in a row (reset never: a task has maxGateFailures attempts in all). */
  gateFailures: number
  /** Stall recoveries so far; the second stall rolls the task back. */
  recoveries: number
}

export interface LoopPolicy {
  maxGateFailures: number
  stallThreshold: number
  noProgressIterations: number
}

export const initialCounters: LoopCounters = { gateFailures: 0, recoveries: 0 }

/** One fact about the iteration that just ran, in the order the loop learns them. */
export type LoopStep =
  /** status.txt says complete: the phase guard decides whether gates run. */
  | { kind: 'completion-signalled'; phase: 'plan' | 'build'; planHasContent: boolean; planCheck: PlanCheck }
  /** The quality gates ran (the loop records each result before deciding). */
  | { kind: 'gates-ran'; results: GateResult[] }
  /** The stall detector's verdict on this iteration. */
  | { kind: 'stall-checked'; verdict: StallVerdict['kind'] }
  /** The last allowed iteration ended without completing the task. */
  | { kind: 'iterations-exhausted'; maxIterations: number }

export type StallKind = 'repeat' | 'no-progress'

export type LoopAction =
  | { type: 'run-gates' }
  | { type: 'set-status'; status: 'running' | 'failed' }
  | { type: 'write-feedback'; text: string }
  | { type: 'succeed' }
  | { type: 'fail'; reason: FailReason; message: string }
  /** Snapshot stall-recovery-N, tell the model what went wrong, reset the detector. */
  | { type: 'recover-stall'; kind: StallKind; recovery: number; why: string }
  /** Roll the task back to its pre-task snapshot and fail it. */
  | { type: 'rollback-stall'; kind: StallKind; recovery: number; why: string }

export interface Decision {
  counters: LoopCounters
  actions: LoopAction[]
}

/** The part of the loop's config that `decide` reads. */
export function decidePolicy(config: LoopConfig): LoopPolicy {
  return {
    maxGateFailures: config.maxGateFailures,
    stallThreshold: config.stallThreshold,
    noProgressIterations: config.noProgressIterations,
  }
}

/** How many stall detections a task survives: the first is recovered, the second rolls back. */
export const MAX_STALL_RECOVERIES = 2

export const PLAN_PHASE_COMPLETE_FEEDBACK =
  '# Plan phase\n\nYou signalled completion while the task is still in the PLAN phase. The harness validates .ralph/plan.tsx at the start of the next iteration; build once it says "Plan Validated".\n'

export function decide(counters: LoopCounters, step: LoopStep, policy: LoopPolicy): Decision {
  switch (step.kind) {
    case 'completion-signalled':
      return { counters, actions: decideCompletion(step) }
    case 'gates-ran':
      return decideGates(counters, step.results, policy)
    case 'stall-checked':
      return decideStall(counters, step.verdict, policy)
    case 'iterations-exhausted':
      return {
        counters,
        actions: [
          { type: 'set-status', status: 'failed' },
          {
            type: 'fail',
            reason: 'max-iterations',
            message: `The task did not complete within ${step.maxIterations} iterations.`,
          },
        ],
      }
  }
}

/**
 * The phase guard at the gate sites (seed 002): gates run in BUILD or when there is no plan; in PLAN with a plan,
 * the complete signal is swallowed (status back to running) and the model hears why.
 */
function decideCompletion(step: Extract<LoopStep, { kind: 'completion-signalled' }>): LoopAction[] {
  if (step.phase === 'build' || !step.planHasContent) return [{ type: 'run-gates' }]
  const text = step.planCheck.kind === 'unchanged' ? step.planCheck.feedback : PLAN_PHASE_COMPLETE_FEEDBACK
  return [
    { type: 'set-status', status: 'running' },
    { type: 'write-feedback', text },
  ]
}

function decideGates(counters: LoopCounters, results: GateResult[], policy: LoopPolicy): Decision {
  if (!results.some((r) => r.severity === 'failure')) return { counters, actions: [{ type: 'succeed' }] }
  const gateFailures = counters.gateFailures + 1
  const actions: LoopAction[] = [
    { type: 'write-feedback', text: gateFeedback(results, gateFailures, policy.maxGateFailures) },
    { type: 'set-status', status: 'running' },
  ]
  if (gateFailures >= policy.maxGateFailures) {
    const first = results.find((r) => r.severity === 'failure')!
    actions.push({
      type: 'fail',
      reason: 'gates',
      message: `Quality gates failed ${gateFailures} times in a row; last: [${first.gate}] ${first.message}`,
    })
  }
  return { counters: { ...counters, gateFailures }, actions }
}

function decideStall(counters: LoopCounters, verdict: StallVerdict['kind'], policy: LoopPolicy): Decision {
  if (verdict === 'ok') return { counters, actions: [] }
  const recoveries = counters.recoveries + 1
  const why =
    verdict === 'repeat'
      ? `the last ${policy.stallThreshold} iterations made exactly the same tool calls`
      : `no file changed in the last ${policy.noProgressIterations} iterations`
  const type = recoveries >= MAX_STALL_RECOVERIES ? 'rollback-stall' : 'recover-stall'
  return {
    counters: { ...counters, recoveries },
    actions: [{ type, kind: verdict, recovery: recoveries, why }],
  }
}

/** feedback.md after a failed gate run: every failure, the warnings, and which attempt this was. */
export function gateFeedback(results: GateResult[], attempt: number, maxAttempts: number): string {
  const failures = results.filter((r) => r.severity === 'failure')
  const warnings = results.filter((r) => r.severity === 'warning')
  return [
    '# Quality gates failed',
    '',
    `Attempt ${attempt} of ${maxAttempts}: the task is not complete yet.`,
    '',
    ...failures.map((r) => `FAIL [${r.gate}]: ${r.message}`),
    ...(warnings.length ? ['', ...warnings.map((r) => `WARN [${r.gate}]: ${r.message}`)] : []),
    '',
    'Fix every FAIL above, then call mark_complete again.',
    '',
  ].join('\n')
}

/** The message of a task that stalled twice and was rolled back to its pre-task snapshot. */
export function stallRollbackMessage(task: number, recoveries: number, why: string, target: string): string {
  return `Task ${task} failed after ${recoveries} stall recoveries (${why}). The project was rolled back to ${target}; Undo in the Timeline (or "ralph snapshot undo") brings the abandoned work back. Consider simplifying the task or splitting it into smaller requests.`
}
