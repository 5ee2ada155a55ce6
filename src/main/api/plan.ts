import { createHash } from 'node:crypto'
import type { planCalls, PlanShow } from '../../shared/api/plan'
import {
  diffPlans,
  formatPlanDiff,
  listSections,
  loadProjectPlan,
  parsePlan,
  planPathOf,
  projectValidateOptions,
  readTaskNumber,
  validatePlan,
  validateProjectPlan,
  type Plan,
} from '../plan'
import { comparePlanVersions } from '../plan/compare'
import { diffPlanAtTask } from '../plan/diffAtTask'
import { markerHints } from '../plan/markerHints'
import { planOutline } from '../plan/outline'
import { hasTag, runningTask, SnapshotEngine, snapshotSource, snapshotTags } from '../snapshots'
import { cachedSource, workingTreeSource, type FileSource } from '../plan/fileSource'
import { writeFileAtomic } from '../workspace/atomicWrite'
import { AppError } from '../../shared/errors'
import type { Handlers } from './types'
import type { Logger } from '../workspace/logFile'

/** The version a save names: a content hash, so an on-disk change under unsaved edits is noticed. */
export const planVersion = (text: string | null): string =>
  text === null ? 'none' : createHash('sha256').update(text).digest('hex').slice(0, 16)

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

/**
 * The files at task-N-pre for the editor's marker hints, which run on every pause in typing. A tag's content never
 * changes (tags are never moved or reused), so its reads are cached for a while instead of asking git each time.
 */
const preTaskSources = new Map<string, { source: FileSource; until: number }>()
const PRE_TASK_TTL_MS = 60_000

async function preTaskSource(projectDir: string, tag: string, logger: Logger): Promise<FileSource | null> {
  const key = `${projectDir}\u0000${tag}`
  const hit = preTaskSources.get(key)
  if (hit && hit.until > Date.now()) return hit.source
  const engine = new SnapshotEngine({ projectDir, logger })
  if (!(await hasTag(engine, tag))) return null
  if (preTaskSources.size > 32) preTaskSources.clear()
  const source = cachedSource(snapshotSource(engine, tag))
  preTaskSources.set(key, { source, until: Date.now() + PRE_TASK_TTL_MS })
  return source
}

export const planHandlers: Handlers<typeof planCalls> = {
  'plan.read': async ({ projectId }, ctx) => {
    const project = ctx.resolveProject(projectId)
    const [{ path, text }, running, task] = await Promise.all([
      loadProjectPlan(project.path),
      runningTask(project.path),
      readTaskNumber(project.path),
    ])
    return {
      path,
      exists: text !== null,
      text: text ?? '',
      version: planVersion(text),
      taskRunning: running !== null,
      taskNumber: task,
    }
  },

  'plan.save': async ({ projectId, text, baseVersion, force }, ctx) => {
    const project = ctx.resolveProject(projectId)
    if (await runningTask(project.path)) {
      throw new AppError(
        'busy',
        'A task is running: the loop owns the plan until it ends. Stop it to edit.',
        {
          taskRunning: true,
        },
      )
    }
    const current = await loadProjectPlan(project.path)
    if (!force && baseVersion !== undefined && planVersion(current.text) !== baseVersion) {
      throw new AppError('invalid-input', 'The plan changed on disk since you opened it.', {
        conflict: true,
        version: planVersion(current.text),
      })
    }
    await writeFileAtomic(current.path, text)
    const version = planVersion(text)
    ctx.emit('plan.changed', { projectId, version })
    return { path: current.path, version }
  },

  'plan.analyze': async ({ projectId, text }, ctx) => {
    const project = ctx.resolveProject(projectId)
    const plan = parsePlan(text)
    const task = await readTaskNumber(project.path)
    // The gates compare with task-N-pre: count there when it exists.
    const pre = task === null ? null : snapshotTags.taskPre(task)
    const atPre = pre === null ? null : await preTaskSource(project.path, pre, ctx.logger)
    const source = atPre ?? workingTreeSource(project.path)
    const [validation, markers] = await Promise.all([
      validatePlan(plan, await projectValidateOptions(project.path)),
      markerHints(plan, task, source, atPre ? `counted at ${pre}` : 'counted now'),
    ])
    return {
      valid: validation.valid,
      taskNumber: validation.taskNumber,
      findings: validation.findings,
      markers,
      outline: planOutline(plan, task),
    }
  },

  'plan.compare': async ({ projectId, from, to }, ctx) =>
    comparePlanVersions(ctx.resolveProject(projectId).path, { from, to, logger: ctx.logger }),

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
      const r = await diffPlanAtTask(project.path, parsePlan(src.text ?? ''), { logger: ctx.logger })
      if (!r.found) return { path: src.path, against: 'none' as const, diff: null, summary: r.reason }
      return { path: src.path, against: 'snapshot' as const, diff: r.diff, summary: r.summary }
    }
    const diff = diffPlans(parsePlan(beforeText), parsePlan(src.text ?? ''))
    return { path: src.path, against: 'text' as const, diff, summary: formatPlanDiff(diff) }
  },
}
