// Carries out the actions `decide` returns, one at a time; the loop stops at the first that ends the task.
import type { LoopAction } from './decide'
import type { IterationOutcome } from './iteration'
import { recoverStall, rollbackAndFail } from './stallRecovery'
import { fail, succeed } from './taskEnd'
import type { RunTaskResult, TaskRun } from './taskRun'

/** Carries out one action of `decide`; returns the task's result when the action ends it. */
export async function carryOut(
  run: TaskRun,
  action: LoopAction,
  iteration: number,
  outcome: IterationOutcome | null,
): Promise<RunTaskResult | null> {
  switch (action.type) {
    case 'run-gates':
      throw new Error('run-gates is carried out by the loop.')
    case 'set-status':
      await run.state.setStatus(action.status)
      return null
    case 'write-feedback':
      await run.state.write('feedback', action.text)
      return null
    case 'succeed':
      return succeed(run, iteration)
    case 'fail':
      return fail(run, action.reason, action.message, null)
    case 'recover-stall':
      await recoverStall(run, action, iteration, outcome)
      return null
    case 'rollback-stall':
      return rollbackAndFail(run, action.kind, action.why, action.recovery)
  }
}
