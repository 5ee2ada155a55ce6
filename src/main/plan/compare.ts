// The one use case behind the editor's "Plan diff" review (API `plan.compare`) and `ralph plan diff --from --to`:
// two versions of the plan (snapshot tags or the working copy), their structural diff, and the plan against the
// implementation through the scope gates and the plan-diff gate, each run once here, never re-implemented.
import type { PlanCompare, SectionVerdict } from '../../shared/api/plan'
import { AppError } from '../../shared/errors'
import { taskOfTag } from '../../shared/snapshotTags'
import { hasTag, SnapshotEngine, snapshotSource, assertTagName, snapshotTags } from '../snapshots'
import { planDiffGate } from './diff'
import { cachedSource, normalizePath, workingTreeSource, type FileSource } from './fileSource'
import { runScopeGates } from './gates'
import { parsePlan } from './parse'
import { readTaskNumber } from './project'
import { listSections, markersFor, walk } from './sections'
import { formatStructuralDiff, structuralDiff } from './structuralDiff'
import type { Plan } from './types'
import type { Logger } from '../workspace'

export const WORKING = 'working'
const PLAN_FILE = '.ralph/plan.tsx'

export interface CompareOptions {
  /** A snapshot tag or `working`; default: the last task's pre-task snapshot. */
  from?: string
  /** A snapshot tag or `working`; default: the last task's post-task snapshot, else the working copy. */
  to?: string
  /** Where failures the snapshot engine survives are recorded (the core's log; tests pass `memoryLogger()`). */
  logger: Logger
}

/** The last task's pre → post (or → working copy while it has no post snapshot). */
async function defaultRange(engine: SnapshotEngine): Promise<{ from: string; to: string }> {
  const { items } = await engine.list({ limit: 1_000_000 })
  const tasks = items.filter((s) => s.task !== null && s.kind === 'task-pre').map((s) => s.task!)
  if (tasks.length === 0) {
    throw new AppError(
      'not-found',
      'No task has run yet, so there is no task-N-pre snapshot to compare the plan with. Choose From and To.',
    )
  }
  const last = Math.max(...tasks)
  const has = (tag: string) => items.some((s) => s.tag === tag)
  const post = snapshotTags.taskPost(last)
  return { from: snapshotTags.taskPre(last), to: has(post) ? post : WORKING }
}

async function sourceOf(projectDir: string, engine: SnapshotEngine, version: string): Promise<FileSource> {
  if (version === WORKING) return workingTreeSource(projectDir)
  assertTagName(version)
  if (!(await hasTag(engine, version))) throw new AppError('not-found', `Snapshot ${version} does not exist.`)
  return cachedSource(snapshotSource(engine, version))
}

/** The task whose markers and gates the comparison is about: from the tags, else the plan, else the counter. */
async function taskOf(projectDir: string, from: string, to: string, plan: Plan): Promise<number | null> {
  const tagged = taskOfTag(from) ?? taskOfTag(to)
  if (tagged !== null) return tagged
  let max: number | null = null
  for (const r of plan.roots) {
    walk(r, (el) => {
      for (const c of el.comments)
        if (c.marker?.task != null && (max === null || c.marker.task > max)) max = c.marker.task
    })
  }
  return max ?? (await readTaskNumber(projectDir))
}

/** Plan against implementation: every section carrying markers for the task, its files and the verdicts. */
async function implementation(
  plan: Plan,
  beforePlan: Plan | null,
  task: number,
  before: FileSource,
  now: FileSource,
): Promise<SectionVerdict[]> {
  const gates = [
    ...(await runScopeGates({ plan, task, before, now, beforePlan })),
    ...(await planDiffGate({ plan, task, before, now })),
  ]
  const out: SectionVerdict[] = []
  for (const s of listSections(plan)) {
    const markers = markersFor(s, task)
    if (markers.length === 0) continue
    const files = await Promise.all(
      s.files.map(async (p) => {
        const path = normalizePath(p)
        const [b, n] = [await before.read(path), await now.read(path)]
        return { path, changed: b !== n, existsBefore: b !== null, existsAfter: n !== null }
      }),
    )
    out.push({
      section: s.label,
      line: s.element.pos.line,
      markers,
      files,
      verdicts: gates.filter((g) => g.section === s.label),
    })
  }
  return out
}

export async function comparePlanVersions(projectDir: string, options: CompareOptions): Promise<PlanCompare> {
  const engine = new SnapshotEngine({ projectDir, logger: options.logger })
  const given = options.from !== undefined && options.to !== undefined
  const fallback = given ? null : await defaultRange(engine)
  const range = { from: options.from ?? fallback!.from, to: options.to ?? fallback!.to }
  const [fromSource, toSource] = await Promise.all([
    sourceOf(projectDir, engine, range.from),
    sourceOf(projectDir, engine, range.to),
  ])
  const [fromText, toText] = await Promise.all([fromSource.read(PLAN_FILE), toSource.read(PLAN_FILE)])
  const fromPlan = parsePlan(fromText ?? '', `${range.from}:${PLAN_FILE}`)
  const toPlan = parsePlan(toText ?? '', `${range.to}:${PLAN_FILE}`)
  const diff = structuralDiff(fromPlan, toPlan)
  const task = await taskOf(projectDir, range.from, range.to, toPlan)
  const verdicts =
    task !== null && toText !== null
      ? await implementation(toPlan, fromText?.trim() ? fromPlan : null, task, fromSource, toSource)
      : []
  const what = (v: string) => (v === WORKING ? 'the working copy' : v)
  const missing = [fromText === null ? what(range.from) : null, toText === null ? what(range.to) : null]
    .filter(Boolean)
    .join(' and ')
  return {
    from: range.from,
    to: range.to,
    task,
    fromText,
    toText,
    diff,
    implementation: verdicts,
    summary:
      `Plan ${what(range.from)} → ${what(range.to)}:\n${formatStructuralDiff(diff)}` +
      (missing ? `\n(no .ralph/plan.tsx in ${missing})` : ''),
  }
}
