import { hasTag, SnapshotEngine, snapshotSource, baseTagName } from '../snapshots'
import { diffPlans, formatPlanDiff, planDiffGate, type PlanDiff } from './diff'
import { workingTreeSource } from './fileSource'
import { runScopeGates } from './gates'
import { parsePlan } from './parse'
import { readTaskNumber } from './project'
import type { GateResult, Plan } from './types'
import type { Logger } from '../workspace'

export type PlanDiffAtTask =
  | { found: false; task: number | null; tag: string | null; reason: string }
  | { found: true; task: number; tag: string; diff: PlanDiff; summary: string; gates: GateResult[] | null }

/**
 * The plan now against the plan in `task-N-pre` (N: the given task, else the current one), and optionally the
 * scope gates against that snapshot: what `ralph plan diff` and the API's `plan.diff` both answer.
 */
export async function diffPlanAtTask(
  projectDir: string,
  plan: Plan,
  options: { task?: number | null; gates?: boolean; logger: Logger },
): Promise<PlanDiffAtTask> {
  const task = options.task ?? (await readTaskNumber(projectDir))
  if (task === null) {
    return {
      found: false,
      task: null,
      tag: null,
      reason: 'No task has started yet: nothing to compare with.',
    }
  }
  const tag = baseTagName('task-pre', task, Date.now())
  const engine = new SnapshotEngine({ projectDir, logger: options.logger })
  if (!(await hasTag(engine, tag))) {
    return { found: false, task, tag, reason: `Snapshot ${tag} does not exist.` }
  }
  const before = snapshotSource(engine, tag)
  const beforeText = await before.read('.ralph/plan.tsx')
  const beforePlan = parsePlan(beforeText ?? '', `${tag}:.ralph/plan.tsx`)
  const diff = diffPlans(beforePlan, plan)
  let gates: GateResult[] | null = null
  if (options.gates) {
    const now = workingTreeSource(projectDir)
    gates = [
      ...(await runScopeGates({
        plan,
        task,
        before,
        now,
        beforePlan: beforeText?.trim() ? beforePlan : null,
      })),
      ...(await planDiffGate({ plan, task, before, now })),
    ]
  }
  return { found: true, task, tag, diff, summary: `Plan now vs ${tag}:\n${formatPlanDiff(diff)}`, gates }
}
