// Stall recovery's effects (seed 000 §8): whether an iteration made progress, the recovery (a snapshot and the
// feedback that tells the next iteration what went wrong), and the rollback to task-N-pre when recoveries run out.
// When to do which is `decide`'s; counting repeats is StallDetector's.
import type { LoopAction } from './decide'
import { stallRollbackMessage } from './decide'
import type { IterationOutcome } from './iteration'
import { preTag, snapshotEvent } from './lifecycle'
import { treeFingerprint } from './progress'
import { recoveryFeedback } from './recovery'
import type { StallDetector } from './stall'
import { fail } from './taskEnd'
import type { RunTaskResult, TaskRun } from './taskRun'

/**
 * Progress is what the tools report; only an iteration that ran shell commands and reported no change pays for
 * a fingerprint of the tree. A stale baseline can only make a change look like progress, never a stall.
 */
export async function checkStall(
  projectDir: string,
  stall: StallDetector,
  outcome: IterationOutcome,
  before: string,
) {
  let fingerprint = before
  let progress = outcome.changedFiles.length > 0
  if (!progress && outcome.ranCommands) {
    fingerprint = await treeFingerprint(projectDir)
    progress = fingerprint !== before
  }
  const verdict = stall.record(outcome.signature, progress)
  return { verdict: verdict.kind, fingerprint }
}

/** A stall the task recovers from: a stall-recovery snapshot, its events, and feedback.md for the next iteration. */
export async function recoverStall(
  run: TaskRun,
  action: Extract<LoopAction, { type: 'recover-stall' }>,
  iteration: number,
  outcome: IterationOutcome | null,
): Promise<void> {
  const { task, state } = run
  const saved = await run.engine.save({
    kind: 'stall-recovery',
    task,
    message: `stall recovery ${action.recovery}: ${action.why}`,
  })
  run.emit(snapshotEvent(task, saved, iteration))
  run.emit({
    type: 'stall.detected',
    task,
    iteration,
    kind: action.kind,
    recovery: action.recovery,
    action: 'recover',
    message: action.why,
  })
  await state.write(
    'feedback',
    recoveryFeedback({
      task,
      iteration,
      why: action.why,
      tag: saved.tag,
      plan: await state.plan(),
      calls: outcome?.calls ?? [],
    }),
  )
}

/** Recoveries ran out: the project goes back to task-N-pre and the task fails, saying why. */
export async function rollbackAndFail(
  run: TaskRun,
  kind: 'repeat' | 'no-progress',
  why: string,
  recoveries: number,
): Promise<RunTaskResult> {
  const { task } = run
  const target = preTag(task)
  run.emit({
    type: 'stall.detected',
    task,
    iteration: run.iteration,
    kind,
    recovery: recoveries,
    action: 'rollback',
    message: why,
  })
  await run.engine.rollback(target)
  const message = stallRollbackMessage(task, recoveries, why, target)
  await run.state.setStatus('failed')
  await run.state.write('feedback', `${message}\n`)
  return fail(run, kind === 'repeat' ? 'stall' : 'no-progress', message, target)
}
