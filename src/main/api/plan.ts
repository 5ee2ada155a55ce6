import type { planCalls, PlanShow } from '../../shared/api/plan'
import {
  diffPlans,
  formatPlanDiff,
  listSections,
  loadProjectPlan,
  parsePlan,
  planPathOf,
  readTaskNumber,
  validateProjectPlan,
  type Plan,
} from '../plan'
import { diffPlanAtTask } from '../plan/diffAtTask'
import type { Handlers } from './types'

/** The plan text to work on: the editor's buffer when given, else .ralph/plan.tsx. */
async function planText(projectDir: string, text: string | undefined) {
  if (text !== undefined) return { path: planPathOf(projectDir), text }
  const loaded = await loadProjectPlan(projectDir)
  return { path: loaded.path, text: loaded.text }
}

export function showPlan(plan: Plan | null, path: string, exists: boolean, task: number | null): PlanShow {
  return {
    path,
    exists,
    root: plan?.root ?? null,
    errors: (plan?.errors ?? []).map((e) => ({ message: e.message, line: e.pos.line, column: e.pos.column })),
    imports: plan?.imports ?? [],
    lineCount: plan?.lineCount ?? 0,
    sections: plan
      ? listSections(plan).map((s) => ({
          screen: s.screen,
          gumdrop: s.gumdrop,
          files: s.files,
          label: s.label,
          line: s.element.pos.line,
          // All own markers, so the UI can also show stale ones; inherited ones only for the current task.
          markers: [
            ...s.ownMarkers,
            ...s.inheritedMarkers.filter((m) => task === null || m.task === task || m.task === null),
          ],
        }))
      : [],
  }
}

export const planHandlers: Handlers<typeof planCalls> = {
  'plan.show': async ({ projectId, text }, ctx) => {
    const project = ctx.resolveProject(projectId)
    const src = await planText(project.path, text)
    const plan = src.text === null ? null : parsePlan(src.text)
    return showPlan(plan, src.path, src.text !== null, await readTaskNumber(project.path))
  },

  'plan.validate': async ({ projectId, text, taskNumber }, ctx) => {
    const project = ctx.resolveProject(projectId)
    const src = await planText(project.path, text)
    if (src.text === null) {
      return {
        path: src.path,
        exists: false,
        valid: false,
        taskNumber: taskNumber ?? null,
        findings: [
          {
            rule: 'parseable',
            severity: 'failure' as const,
            message:
              'There is no .ralph/plan.tsx yet: write the plan as export default ( <App name="…"> … </App> ).',
            line: 1,
            column: 1,
          },
        ],
      }
    }
    const r = await validateProjectPlan(
      project.path,
      src.text,
      taskNumber === undefined ? {} : { taskNumber },
    )
    return { path: src.path, exists: true, valid: r.valid, taskNumber: r.taskNumber, findings: r.findings }
  },

  // Without an explicit earlier text, the plan is compared with the one in the current task's pre-task snapshot.
  'plan.diff': async ({ projectId, beforeText, text }, ctx) => {
    const project = ctx.resolveProject(projectId)
    const src = await planText(project.path, text)
    if (beforeText === undefined) {
      const r = await diffPlanAtTask(project.path, parsePlan(src.text ?? ''))
      if (!r.found) return { path: src.path, against: 'none' as const, diff: null, summary: r.reason }
      return { path: src.path, against: 'snapshot' as const, diff: r.diff, summary: r.summary }
    }
    const diff = diffPlans(parsePlan(beforeText), parsePlan(src.text ?? ''))
    return { path: src.path, against: 'text' as const, diff, summary: formatPlanDiff(diff) }
  },
}
