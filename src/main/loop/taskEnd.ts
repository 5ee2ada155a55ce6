// How a task ends: complete (task-N-post, its receipt) or not (its reason and message, status.txt, its receipt).
// Which reason an error or an abort means is decided apart, in `failureOf` and `endingOf`.
import { isAppError } from '../../shared/errors'
import { UsageLimitError } from '../llm'
import { fallbackTo } from '../workspace'
import { CostCapReached, TokenCapReached } from './costCap'
import type { FailReason } from './decide'
import { postTag, preTag, snapshotEvent } from './lifecycle'
import { LimitNotWaitedError } from './limitWait'
import { abortedByShutdown, type ShutdownAbort } from './shutdown'
import type { RunTaskResult, RunTaskStatus, TaskRun } from './taskRun'

export interface Failure {
  reason: FailReason
  message: string
}

/** What an interrupted task's card and `ralph run` say: where it stopped and how to go on. */
export function interruptedMessage(task: number, iteration: number, why: ShutdownAbort): string {
  const where = iteration > 0 ? ` during iteration ${iteration}` : ' before its first iteration'
  return (
    `Interrupted: Ralph was shut down (${why.why})${where}. Resume continues task ${task} from where it ` +
    `stopped (ralph run --resume, or Resume on its card); the pre-task snapshot ${preTag(task)} is intact.`
  )
}

const isAbort = (err: unknown, signal: AbortSignal) =>
  signal.aborted || isAppError(err, 'cancelled') || (err as Error)?.name === 'AbortError'

/** The reason and message of a task that ended by an error thrown out of its set-up or iterations. */
export function failureOf(err: unknown, signal: AbortSignal, task: number): Failure {
  // The cap ends the task where it is: no post-task snapshot, task-N-pre untouched, the work so far kept.
  if (err instanceof CostCapReached || err instanceof TokenCapReached) {
    const message =
      `${err.message} The pre-task snapshot ${preTag(task)} is intact and the files keep the work so ` +
      'far: roll back to it, or raise the cap and run the task again.'
    return { reason: 'cost-cap', message }
  }
  if (isAbort(err, signal))
    return { reason: 'stopped', message: 'Stopped by the user. The pre-task snapshot is intact.' }
  if (err instanceof LimitNotWaitedError || err instanceof UsageLimitError)
    return { reason: 'usage-limit', message: err.message }
  if (isAppError(err, 'provider') || isAppError(err, 'config'))
    return { reason: 'provider', message: err.message }
  return { reason: 'error', message: (err as Error).message || String(err) }
}

/**
 * A shutdown (Ctrl+C, SIGTERM, the app quitting) is an interruption, not the user's Stop: the task stays
 * resumable, as after a hard kill. Every other failure stays as it is.
 */
export function endingOf(failure: Failure, signal: AbortSignal, task: number, iteration: number): Failure {
  if (failure.reason !== 'stopped' || !abortedByShutdown(signal)) return failure
  return {
    reason: 'interrupted',
    message: interruptedMessage(task, iteration, signal.reason as ShutdownAbort),
  }
}

/** The outcome a failure reason shows as. */
export function failedStatus(reason: FailReason): RunTaskStatus {
  return reason === 'stopped' ? 'stopped' : reason === 'interrupted' ? 'interrupted' : 'failed'
}

/** Every gate passed: task-N-post, and the receipt with the summary's words. */
export async function succeed(run: TaskRun, iteration: number): Promise<RunTaskResult> {
  const { task } = run
  // summary.md starts with a "# Summary" heading; the event carries the words, not the heading.
  const summary = (await run.state.read('summary')).replace(/^#[^\n]*\n+/, '').trim()
  const saved = await run.engine.save({
    kind: 'task-post',
    task,
    message: `task ${task}: ${summary.split('\n')[0]?.slice(0, 72) ?? ''}`,
  })
  run.emit(snapshotEvent(task, saved, iteration))
  const receipt = run.rec.completed(iteration, summary, postTag(task))
  return {
    status: 'complete',
    task,
    iterations: iteration,
    message: summary,
    costUsd: receipt.costUsd,
    receipt,
    runId: run.rec.runId,
  }
}

/** The task ends without task-N-post: status.txt, its run row and receipt say why. */
export async function fail(
  run: TaskRun,
  reason: FailReason,
  message: string,
  rolledBackTo: string | null,
): Promise<RunTaskResult> {
  const { task, iteration, input } = run
  const ending = endingOf({ reason, message }, input.signal, task, iteration)
  const ended = ending.reason === 'interrupted' ? 'interrupted' : 'failed'
  await run.state
    .setStatus(ended)
    .catch(fallbackTo(input.logger, `status.txt could not say task ${task} ${ended}`, undefined))
  const receipt = run.rec.failed(iteration, ending.reason, ending.message, rolledBackTo)
  return {
    status: failedStatus(ending.reason),
    task,
    iterations: iteration,
    message: ending.message,
    reason: ending.reason,
    costUsd: receipt?.costUsd ?? 0,
    ...(receipt ? { receipt } : {}),
    ...(run.rec.runId ? { runId: run.rec.runId } : {}),
  }
}
