// The iterations (DESIGN.md §6): each one starts with the phase gate's plan check and a fresh prompt, runs, and
// then its facts go through `decide` (the phase guard, the gates' attempts, stall recovery); the actions it
// returns are carried out in order, and the first that ends the task returns.
import { resolveContextWindow } from '../llm'
import { carryOut } from './actions'
import { PROGRESS_HEADER, progressSection, type Checkpoint } from './checkpoint'
import { onCompletion } from './completion'
import { buildIterationPrompt, ITERATION_FILE_LIST_CAP, type IterationPrompt } from './context'
import { ContextBudget } from './contextBudget'
import { decide, decidePolicy, initialCounters } from './decide'
import { ENGINE_PROMPT_WINDOW, type IterationRunner } from './engineIteration'
import { limitWaitPolicy } from './limitWait'
import { checkPlanAtIterationTop, type PlanCheck } from './phaseGate'
import { fileListVisitor, type ProjectFileList } from './fileList'
import { fingerprintVisitor } from './progress'
import type { LoopConfig, RalphState } from './ralphState'
import { StallDetector } from './stall'
import { checkStall } from './stallRecovery'
import { runTaskIteration } from './taskIteration'
import type { RunTaskResult, TaskRun } from './taskRun'
import type { PlanGuard } from './taskSetup'
import { walkProjectFiles } from './walk'

export interface LoopPlan {
  runner: IterationRunner
  config: LoopConfig
  maxIterations: number
  plan: PlanGuard
  firstIteration: number
}

/** Runs the task's iterations from `firstIteration` until an action ends the task (the limit always does). */
export async function runIterations(run: TaskRun, loop: LoopPlan): Promise<RunTaskResult> {
  const { input, state } = run
  const { runner, config, maxIterations } = loop
  const stall = new StallDetector(config.stallThreshold, config.noProgressIterations)
  // A local server is asked what it runs (Ollama gets exactly this as num_ctx); see resolveContextWindow.
  const budget = new ContextBudget(
    runner.kind === 'built-in'
      ? (await resolveContextWindow(runner.model, input.contextWindows, input.env)).tokens
      : ENGINE_PROMPT_WINDOW,
  )
  const limits = limitWaitPolicy(input.waitForLimits, config)
  const policy = decidePolicy(config)
  let counters = initialCounters
  let fingerprint = ''
  // The parse (or, resumed, the task's earlier iterations) may have spent the cap already.
  run.caps.record()
  run.caps.check(null)
  // A cap stops the iteration's tools as well as its model calls.
  const signal = run.caps.signal(input.signal)

  for (let i = loop.firstIteration; i <= maxIterations; i++) {
    input.signal.throwIfAborted()
    run.iteration = i
    await state.setIteration(i)
    const check = await checkPlanAtIterationTop(state, run.task, loop.plan)
    // The stall check's baseline and the first prompt's file list come from one walk of the project.
    const scan = i === loop.firstIteration ? await scanProject(input.projectDir) : null
    if (scan) fingerprint = scan.fingerprint
    const { phase, prompt } = await beginIteration(run, i, check, maxIterations, budget, scan?.files)
    const outcome = await runTaskIteration(run, i, runner, { config, phase, prompt, budget, limits, signal })
    if (outcome.checkpoint) await writeCheckpoint(run, i, outcome.checkpoint)

    // The three gate sites of seed 002 collapse here: after a batch that completed, after an answer without
    // tools, and at the end of the iteration — each checks status.txt and the phase guard.
    if ((await state.status()) === 'complete') {
      const gated = await onCompletion(run, { counters, check, policy, config }, i, outcome)
      counters = gated.counters
      if (gated.ended) return gated.ended
    }

    const stalled = await checkStall(input.projectDir, stall, outcome, fingerprint)
    fingerprint = stalled.fingerprint
    const stallDecision = decide(counters, { kind: 'stall-checked', verdict: stalled.verdict }, policy)
    counters = stallDecision.counters
    for (const action of stallDecision.actions) {
      const ended = await carryOut(run, action, i, outcome)
      if (ended) return ended
      if (action.type === 'recover-stall') stall.reset()
    }
  }
  for (const action of decide(counters, { kind: 'iterations-exhausted', maxIterations }, policy).actions) {
    const ended = await carryOut(run, action, run.iteration, null)
    if (ended) return ended
  }
  throw new Error('The iteration limit must end the task.')
}

/** The iteration's start: the phase change the plan check made, its event, and its prompt. */
async function beginIteration(
  run: TaskRun,
  i: number,
  check: PlanCheck,
  maxIterations: number,
  budget: ContextBudget,
  files?: ProjectFileList,
): Promise<{ phase: Awaited<ReturnType<RalphState['phase']>>; prompt: IterationPrompt }> {
  const { state, task } = run
  if (check.kind === 'flipped') {
    run.emit({
      type: 'phase.changed',
      task,
      iteration: i,
      from: 'plan',
      to: 'build',
      reason: 'plan.tsx validated',
    })
  }
  const phase = await state.phase()
  run.emit({ type: 'iteration.started', task, iteration: i, phase, maxIterations, ...run.caps.fields() })
  const prompt = await buildIterationPrompt({
    state,
    taskNumber: task,
    task: run.structured,
    phase,
    iteration: i,
    maxIterations,
    // Half the window at most, so the iteration has room to work before its checkpoint.
    maxTokens: Math.floor(budget.window / 2),
    ...(files ? { files } : {}),
  })
  return { phase, prompt }
}

/** The project's fingerprint (the stall check's baseline) and its file list for the prompt, in one walk. */
async function scanProject(projectDir: string): Promise<{ fingerprint: string; files: ProjectFileList }> {
  const fingerprint = fingerprintVisitor()
  const list = fileListVisitor(ITERATION_FILE_LIST_CAP)
  await walkProjectFiles(projectDir, (rel, full) => {
    fingerprint.visit(rel, full)
    list.visit(rel)
  })
  return { fingerprint: fingerprint.digest(), files: list.result() }
}

/** Appends the checkpoint to progress.md (the next iteration's prompt shows it) and records it. */
async function writeCheckpoint(run: TaskRun, iteration: number, checkpoint: Checkpoint): Promise<void> {
  const existing = await run.state.read('progress')
  const head = existing.trim() ? existing.trimEnd() + '\n\n' : PROGRESS_HEADER(run.task)
  await run.state.write('progress', head + progressSection(iteration, checkpoint))
  run.rec.checkpointWritten(iteration, checkpoint)
}
