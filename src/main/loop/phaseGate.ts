import { listMarkers, parsePlan, projectValidateOptions, validatePlan } from '../plan'
import type { RalphState } from './ralphState'

export type PlanCheck =
  | { kind: 'no-plan' }
  | { kind: 'unchanged'; feedback: string }
  | { kind: 'invalid'; feedback: string }
  | { kind: 'flipped'; feedback: string }
  | { kind: 'already-build' }

const line = (f: { rule: string; message: string; line: number; column: number }, tag: string) =>
  `${tag} [${f.rule}] line ${f.line}:${f.column} — ${f.message}`

/**
 * The top of every iteration (seed 002): in PLAN with plan.tsx content, the harness — not the model — validates
 * the plan and either writes the failures to feedback.md (staying in PLAN) or flips to BUILD. Non-plan tasks
 * (no plan content) pass straight through.
 */
export async function checkPlanAtIterationTop(
  state: RalphState,
  taskNumber: number,
  opts: { baseline: string; requireMarkers: boolean },
): Promise<PlanCheck> {
  if ((await state.phase()) === 'build') return { kind: 'already-build' }
  const text = await state.plan()
  if (!text.trim()) return { kind: 'no-plan' }
  // A plan carried over from the previous task is not this task's plan until the model has written to it.
  if (text.trim() === opts.baseline.trim()) {
    return { kind: 'unchanged', feedback: unchangedFeedback(taskNumber, opts.requireMarkers) }
  }
  const plan = parsePlan(text)
  const result = validatePlan(plan, await projectValidateOptions(state.projectDir, { taskNumber }))
  const warnings = result.warnings.map((w) => line(w, 'WARN'))
  const missingMarkers = opts.requireMarkers && result.valid && listMarkers(plan, taskNumber).length === 0
  if (!result.valid || missingMarkers) {
    const feedback = [
      '# Plan Validation',
      '',
      'plan.tsx is not valid yet, so the task stays in the PLAN phase:',
      '',
      ...result.failures.map((f) => line(f, 'FAIL')),
      ...(missingMarkers
        ? [
            `FAIL [task-markers] — this task changes an existing project, but no section carries a TASK-${taskNumber} marker. ` +
              `Mark what the task adds, modifies, fixes or removes ({/* TASK-${taskNumber} [ADD]: … */}) and what must stay ({/* NO CHANGES for task-${taskNumber} */}, PRESERVED).`,
          ]
        : []),
      ...(warnings.length ? ['', ...warnings] : []),
      '',
      'Fix these issues in .ralph/plan.tsx. The harness validates it again at the start of the next iteration.',
      '',
    ].join('\n')
    return sendFeedback(state, 'invalid', feedback)
  }
  await state.setPhase('build')
  const feedback = [
    '# Plan Validated ✓',
    '',
    'Your plan is structurally valid. The task is now in the BUILD phase: implement it.',
    ...(warnings.length ? ['', 'Warnings:', ...warnings] : []),
    '',
    'Work section by section through plan.tsx, writing the files each Section lists.',
    'When everything is implemented, call mark_complete with a summary; the quality gates run then.',
    '',
  ].join('\n')
  return sendFeedback(state, 'flipped', feedback)
}

/** Hands the verdict to the next iteration: feedback.md holds it, and the loop keeps running. */
async function sendFeedback(
  state: RalphState,
  kind: 'invalid' | 'flipped',
  feedback: string,
): Promise<PlanCheck> {
  await state.write('feedback', feedback)
  await state.setStatus('running')
  return { kind, feedback }
}

/**
 * The phase guard at all three gate sites (seed 002): in PLAN with a plan that has content, a complete signal is
 * swallowed (status back to running) and validation happens at the next iteration top. Otherwise gates run.
 */
export async function shouldRunGates(state: RalphState): Promise<boolean> {
  if ((await state.phase()) === 'build') return true
  if (!(await state.plan()).trim()) return true
  await state.setStatus('running')
  return false
}

function unchangedFeedback(taskNumber: number, requireMarkers: boolean): string {
  return [
    '# Plan first',
    '',
    `Task ${taskNumber} is in the PLAN phase and .ralph/plan.tsx is still the plan from before this task.`,
    requireMarkers
      ? `Update it for this task: add TASK-${taskNumber} markers to the sections it touches and NO CHANGES / PRESERVED where things must stay.`
      : 'Write the plan for this task (or update the existing one); the harness validates it at the next iteration.',
    'A complete signal is ignored until the plan is validated.',
    '',
  ].join('\n')
}
