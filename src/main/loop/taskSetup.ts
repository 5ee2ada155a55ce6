// The set-up between task-N-pre and the first iteration: the caller's own step (a lane's setup command), the
// parse into task.md (which may end the run with a question), and the plan as the task type needs it.
import type { TaskType } from '../../shared/task'
import type { UsageEntry } from '../llm'
import { FILE_LIST_CAP, parseTask, renderTaskMarkdown, type ParseContext } from '../tasks'
import { listProjectFiles } from './fileList'
import { planWithoutStaleMarkers, postTag, stripStalePlanMarkers } from './lifecycle'
import { fail } from './taskEnd'
import type { TaskStart } from './taskStart'
import type { RunTaskResult, TaskRun } from './taskRun'

/** The task ready for its iterations (its parse in `run.structured`), or the result that ended it first. */
export async function readyTask(run: TaskRun, start: TaskStart): Promise<RunTaskResult | null> {
  const unready = start.firstIteration === 1 ? await run.input.beforeIterations?.() : null
  if (unready) return await fail(run, 'error', unready, null)
  if (start.structured) {
    run.structured = start.structured
    return null
  }
  return parse(run, start.message, start.lastSummary)
}

/** What a task's type asks of the plan before its first iteration (seed 000 §3). */
export function planSteps(type: TaskType) {
  return {
    stripStaleMarkers: type === 'mutation' || type === 'bugfix',
    // Bug fixes skip the plan update.
    skipToBuild: type === 'bugfix',
    // Only a fresh task's PLAN phase starts from the plan as it was; others from the plan as it is now.
    rebaseline: type !== 'fresh',
    // A mutation must mark the requirements it changes.
    requireMarkers: type === 'mutation',
  }
}

/** What the phase gate checks plan.tsx against at the top of each iteration. */
export interface PlanGuard {
  baseline: string
  requireMarkers: boolean
}

/**
 * The plan set for the task's type, and what the phase gate will compare it with. A resumed task did this before
 * it was interrupted: its phase and plan are as it left them.
 */
export async function preparePlan(run: TaskRun, start: TaskStart): Promise<PlanGuard> {
  const { state } = run
  const steps = planSteps(run.structured?.type ?? 'fresh')
  const guard = (baseline: string) => ({ baseline, requireMarkers: steps.requireMarkers })
  if (start.structured) {
    return guard(
      steps.rebaseline ? planWithoutStaleMarkers(start.planBaseline, run.task) : start.planBaseline,
    )
  }
  if (steps.stripStaleMarkers) await stripStalePlanMarkers(state, run.task)
  if (steps.skipToBuild) await state.setPhase('build')
  return guard(steps.rebaseline ? await state.plan() : start.planBaseline)
}

/** What the parse is told about the project, whichever task it parses. */
export type ParseBase = Pick<ParseContext, 'planExists' | 'lastSummary' | 'fileList'>

/**
 * What the parse is told about the project: the same whether the task's loop asks, or a lanes build that starts the
 * parse before the task's lane is made (its base is the folder as it is then; one look serves every task it starts
 * from that base).
 */
export async function parseBase(
  projectDir: string,
  lastSummary: string,
  planText: string,
): Promise<ParseBase> {
  const files = await listProjectFiles(projectDir, FILE_LIST_CAP)
  return { planExists: planText.trim().length > 0, lastSummary, fileList: files.files }
}

/** The snapshot task `task` follows (its task.md names it), or null for the first task. */
const previousTagOf = (task: number): string | null => (task > 1 ? postTag(task - 1) : null)

/** The parse's context for task `task` on `base`. */
export function parseContext(base: ParseBase, task: number): ParseContext {
  return { ...base, taskNumber: task, previousTag: previousTagOf(task) }
}

/** Parses the message into task.md; returns a result only when the task must wait for the user. */
async function parse(run: TaskRun, message: string, lastSummary: string): Promise<RunTaskResult | null> {
  const { input, state, task } = run
  const record = (entry: UsageEntry) => run.rec.usage({ ...entry, iteration: null })
  // Started ahead (a lane's parse runs while its lane is made): its answer, and its call's usage on this run.
  const result = input.parseAhead
    ? await input.parseAhead.take(record)
    : await parseTask({
        message,
        context: parseContext(await parseBase(input.projectDir, lastSummary, await state.plan()), task),
        model: input.fastModel ?? input.model,
        signal: input.signal,
        prices: input.prices,
        usage: { record },
        logger: input.logger,
      })
  run.structured = result.task
  const markdown = renderTaskMarkdown(result.task, {
    taskNumber: task,
    previousTag: previousTagOf(task),
    rawMessage: message,
    fallback: result.fallback,
  })
  const extra = input.taskContext?.trim()
  await state.write('task', extra ? `${markdown.trimEnd()}\n\n${extra}\n` : markdown)
  run.rec.runUpdated({ type: result.task.type, title: result.task.title })
  run.emit({
    type: 'task.parsed',
    task,
    parsed: result.task,
    fallback: result.fallback,
    reason: result.reason,
  })
  if (result.task.type !== 'needs-clarification') return null
  const question = result.task.clarification ?? 'Could you say more precisely what you want?'
  await state.setStatus('waiting')
  run.rec.waitingForAnswer(question, result.task.clarificationOptions)
  return {
    status: 'needs-clarification',
    task,
    iterations: 0,
    message: question,
    question,
    costUsd: run.rec.cost(),
    runId: run.rec.runId,
  }
}
