// A merge train's candidate verified again on its merged tree (issue #38): in the task's own lane moved to the
// candidate, with a new nonce, the judge shown the change from the candidate's base. Several run at once, each in
// its own lane; a stale one (a car ahead failed) is cancelled through its own signal.
import { isAppError } from '../../shared/errors'
import type { TaskView } from '../../shared/queue'
import { verifyMergedInLane, type Lane } from '../lanes'
import { judgedCost } from './spend'
import type { AttemptOutcome } from './decide'
import type { BuildInput } from './buildInput'
import type { BuildEvent } from './events'

export type MergedVerdict = Extract<AttemptOutcome, { kind: 'verified' }>

/**
 * How the check ended. `costUsd` is what it spent in every case: a verification cancelled (a stale candidate, the
 * build stopped) or failed midway has paid for the criteria judged so far, and the build's total counts them.
 */
export type MergedCheck =
  | { kind: 'verdict'; verdict: MergedVerdict; costUsd: number }
  /** Cancelled (the candidate went stale, or the build stopped). */
  | { kind: 'cancelled'; costUsd: number }
  | { kind: 'error'; message: string; costUsd: number }

export interface MergedCheckInput {
  input: BuildInput
  task: TaskView
  lane: Lane
  /** The task number (its usage entries). */
  number: number
  runId: number | null
  /** The nonce of the lane's own verification: the merged one is sealed with another. */
  firstNonce: string | undefined
  /** What the candidate was merged onto, and the candidate. */
  base: string
  candidate: string
  signal: AbortSignal
  emit(event: BuildEvent): void
}

export async function checkMerged(c: MergedCheckInput): Promise<MergedCheck> {
  const { input, task } = c
  const spent = judgedCost()
  try {
    const result = await verifyMergedInLane({
      lane: c.lane,
      projectDir: input.projectDir,
      integration: c.base,
      merged: c.candidate,
      ...(c.firstNonce ? { firstNonce: c.firstNonce } : {}),
      task: {
        id: task.id,
        name: task.name,
        ...(task.notes ? { notes: task.notes } : {}),
        accept: task.accept.map((a) => (a.tagged ? `${a.kind}: ${a.text}` : a.text)),
      },
      model: input.fastModel ?? input.model,
      signal: c.signal,
      logger: input.logger,
      verdicts: input.verdicts ?? null,
      projectId: input.projectId ?? null,
      runId: c.runId,
      taskNumber: c.number,
      usage: {
        record: (entry) => input.runs.recordUsage({ ...entry, runId: c.runId, task: entry.taskNumber }),
      },
      emit: (event) => {
        spent.see(event)
        c.emit(event)
      },
      env: input.env,
      prices: input.prices,
      ...(input.verify ? { verify: input.verify } : {}),
    })
    const { costUsd } = result
    if (c.signal.aborted) return { kind: 'cancelled', costUsd }
    if (result.outcome === 'PASS')
      return { kind: 'verdict', verdict: { kind: 'verified', outcome: 'PASS' }, costUsd }
    if (result.outcome === 'NEEDS_HUMAN')
      return {
        kind: 'verdict',
        verdict: { kind: 'verified', outcome: 'NEEDS_HUMAN', feedback: result.feedback },
        costUsd,
      }
    const reason =
      result.verdicts
        .filter((v) => v.answer === 'NO')
        .map((v) => `${v.ref}: ${v.reason}`)
        .join('; ') || 'Verification failed.'
    return {
      kind: 'verdict',
      verdict: { kind: 'verified', outcome: 'FAIL', reason, feedback: result.feedback },
      costUsd,
    }
  } catch (err) {
    if (c.signal.aborted || isAppError(err, 'cancelled')) return { kind: 'cancelled', costUsd: spent.usd() }
    return {
      kind: 'error',
      message: `Verification of ${task.id} on the merged tree could not run: ${(err as Error).message}`,
      costUsd: spent.usd(),
    }
  }
}
