// status.txt says complete (the three gate sites of seed 002 meet here): the phase guard, then the quality gates,
// each of `decide`'s answers carried out in order.
import { runShellCommand } from '../tools'
import { carryOut } from './actions'
import { decide, type LoopCounters, type LoopPolicy } from './decide'
import { runQualityGates } from './gates'
import type { IterationOutcome } from './iteration'
import type { PlanCheck } from './phaseGate'
import type { LoopConfig } from './ralphState'
import type { RunTaskResult, TaskRun } from './taskRun'

/** The task's completion signal handled: the counters after it, and the task's result when it ended. */
export async function onCompletion(
  run: TaskRun,
  at: { counters: LoopCounters; check: PlanCheck; policy: LoopPolicy; config: LoopConfig },
  i: number,
  outcome: IterationOutcome,
): Promise<{ counters: LoopCounters; ended: RunTaskResult | null }> {
  const { policy } = at
  let counters = at.counters
  const completion = decide(counters, await completionFacts(run, at.check), policy)
  for (const action of completion.actions) {
    if (action.type !== 'run-gates') {
      await carryOut(run, action, i, outcome)
      continue
    }
    const results = await runGates(run, at.config)
    run.rec.gatesRan(i, counters.gateFailures + 1, results)
    const gated = decide(counters, { kind: 'gates-ran', results }, policy)
    counters = gated.counters
    for (const a of gated.actions) {
      const ended = await carryOut(run, a, i, outcome)
      if (ended) return { counters, ended }
    }
  }
  return { counters, ended: null }
}

/** What the phase guard needs to know when status.txt says complete. */
async function completionFacts(run: TaskRun, check: PlanCheck) {
  const { state } = run
  const phase = await state.phase()
  const planHasContent = phase === 'build' ? true : (await state.plan()).trim().length > 0
  return { kind: 'completion-signalled' as const, phase, planHasContent, planCheck: check }
}

/** The project's quality gates, run in the project folder with the task's environment. */
function runGates(run: TaskRun, config: LoopConfig) {
  const { input } = run
  return runQualityGates({
    state: run.state,
    engine: run.engine,
    task: run.task,
    config,
    signal: input.signal,
    runCommand: (command, timeoutMs, signal) =>
      runShellCommand(command, {
        cwd: input.projectDir,
        timeoutMs,
        signal,
        env: input.env,
        logger: input.logger,
      }),
  })
}
