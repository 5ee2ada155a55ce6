import { AppError } from '../../shared/errors'
import type { LoopEvent } from '../../shared/loopEvents'
import { parsePlan, stripStaleMarkers } from '../plan'
import { snapshotTags, type SaveResult, type SnapshotEngine } from '../snapshots'
import type { RalphState } from './ralphState'

export const preTag = snapshotTags.taskPre
export const postTag = snapshotTags.taskPost

/** Task numbers are never reused: 1 + the larger of task-counter.txt and the highest N of any task-N-* tag. */
export async function nextTaskNumber(state: RalphState, engine: SnapshotEngine): Promise<number> {
  const counter = await state.taskCounter()
  const { items } = await engine.list({ limit: 1_000_000 })
  const highestTag = items.reduce((max, s) => Math.max(max, s.task ?? 0), 0)
  const next = 1 + Math.max(counter, highestTag)
  // A huge counter would make a float tag (task-1e+23-pre) or lose precision: refuse rather than guess.
  if (!Number.isSafeInteger(next)) {
    const raw = (await state.read('taskCounter')).trim()
    throw new AppError(
      'config',
      `.ralph/task-counter.txt holds ${raw.slice(0, 40) || String(counter)}, which is beyond the largest task number ` +
        `(${Number.MAX_SAFE_INTEGER - 1}). Put the number of the last task there (or delete the file) and try again.`,
    )
  }
  return next
}

export function snapshotEvent(task: number, saved: SaveResult, iteration?: number): LoopEvent {
  return {
    type: 'snapshot.created',
    task,
    ...(iteration === undefined ? {} : { iteration }),
    tag: saved.tag,
    kind: saved.kind,
    commit: saved.commit,
    added: saved.added,
    modified: saved.modified,
    deleted: saved.deleted,
    durationMs: saved.durationMs,
  }
}

/** The first line of prose (headings like "# Summary" say nothing), trimmed to one line. */
function oneLiner(text: string, max = 160): string {
  const lines = text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.length > 0)
  const prose = lines.find((l) => !l.startsWith('#')) ?? lines[0]?.replace(/^#+\s*/, '')
  if (!prose) return ''
  return prose.length > max ? `${prose.slice(0, max - 1)}…` : prose
}

export interface BegunTask {
  task: number
  /** summary.md of the previous task, read before it is cleared (the parser's context). */
  lastSummary: string
  /** plan.tsx as it was at the start of the task: a PLAN phase flips only once the model has written to it. */
  planBaseline: string
}

/**
 * Starts task N (DESIGN.md §6): snapshot task-N-pre first (also for an empty project), then the counter, the
 * history line for the previous task, and the cleared state files.
 */
export async function beginTask(
  state: RalphState,
  engine: SnapshotEngine,
  message: string,
  emit: (e: LoopEvent) => void,
  /** Runs once the task has its number, before task-N-pre is taken (the task's attachments are stored here). */
  prepare?: (task: number) => Promise<void>,
): Promise<BegunTask> {
  const task = await nextTaskNumber(state, engine)
  await prepare?.(task)
  const lastSummary = (await state.read('summary')).trim()
  const previousStatus = await state.status()
  const previousTitle =
    (await state.read('task'))
      .split('\n')[0]
      ?.replace(/^#+\s*/, '')
      .trim() ?? ''
  emit({ type: 'task.started', task, message, continued: false })
  const pre = await engine.save({
    kind: 'task-pre',
    task,
    message: `pre-task ${task}: ${oneLiner(message, 72)}`,
  })
  emit(snapshotEvent(task, pre))
  const previous = task - 1
  await state.setTaskCounter(task)
  if (previous > 0 && (previousTitle || lastSummary)) {
    const what = oneLiner(lastSummary) || previousTitle.replace(/^Task:\s*/, '')
    await state.appendHistory(`- Task ${previous} (${previousStatus || 'unknown'}): ${what}`)
  }
  await state.write('summary', '')
  await state.write('feedback', '')
  await state.write('progress', '') // checkpoints belong to the task that wrote them
  await state.setStatus('running')
  await state.setIteration(0)
  await state.setPhase('plan')
  return { task, lastSummary, planBaseline: await state.plan() }
}

/** Removes markers of earlier tasks from plan.tsx so the new task starts from a clean plan (PLAN_LANGUAGE.md). */
export async function stripStalePlanMarkers(state: RalphState, task: number): Promise<number> {
  const text = await state.plan()
  if (!text.trim()) return 0
  const plan = parsePlan(text)
  if (plan.errors.length) return 0
  const { text: stripped, removed } = stripStaleMarkers(plan, task, { stripUnnumbered: true })
  if (removed.length) await state.write('plan', stripped)
  return removed.length
}

/** plan.tsx text without earlier tasks' markers, as stripStalePlanMarkers would leave it (nothing written). */
export { planWithoutStaleMarkers } from '../plan'
