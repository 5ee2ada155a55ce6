// How a run begins: a new task (task-N-pre, its run row), a waiting task continued with the user's answer, or an
// interrupted task resumed where it stopped. Each gives the loop a TaskStart.
import { AppError, isAppError } from '../../shared/errors'
import type { StructuredTask } from '../../shared/task'
import { storeAttachments } from '../attachments'
import { fallbackTo } from '../workspace'
import { beginTask, preTag } from './lifecycle'
import { findInterruptedTask, resumeNote, structuredFromTaskMarkdown } from './resume'
import type { RunTaskInput, TaskRun } from './taskRun'

export interface TaskStart {
  /** The request the parser reads (a continued task's includes the answer). */
  message: string
  /** summary.md of the previous task, for the parser. */
  lastSummary: string
  planBaseline: string
  /** A resumed task's parse, kept from before the interruption; null when the task must be parsed. */
  structured: StructuredTask | null
  firstIteration: number
}

/** Where a new task's run row is kept: a lane's on the user's project, with the lane's number (issue #38). */
export function runRowPlace(input: Pick<RunTaskInput, 'recordAs'> & { projectDir: string }): {
  projectPath: string
  lane: number | null
} {
  return { projectPath: input.recordAs?.projectPath ?? input.projectDir, lane: input.recordAs?.lane ?? null }
}

/** Why a resume cannot go on: the interrupted iteration was the task's last allowed one. Null when it can. */
export function resumeRefusal(task: number, lastIteration: number, maxIterations: number): string | null {
  if (lastIteration < maxIterations) return null
  return (
    `Task ${task} was interrupted in iteration ${lastIteration}, its last of ${maxIterations}: resuming needs ` +
    `more. Pass --max-iterations ${lastIteration + 10} (or raise maxIterations in .ralph/config.json).`
  )
}

/** The run's start: resumed, continued (a waiting task answered), or a new task. */
export async function startTask(run: TaskRun, maxIterations: number): Promise<TaskStart> {
  if (run.input.resume) return resumeInterrupted(run, maxIterations)
  return (run.input.newTask ? null : await continueWaiting(run)) ?? (await begin(run))
}

/** A new task: task-N-pre, the cleared state files, and its run row (DESIGN.md §6). */
async function begin(run: TaskRun): Promise<TaskStart> {
  const { input } = run
  const begun = await beginTask(
    run.state,
    run.engine,
    input.message,
    (e) => run.emit(e),
    async (task) => void (await storeAttachments(input.projectDir, task, input.images ?? [])),
  )
  run.rec.runStarted({
    projectId: input.projectId ?? null,
    ...runRowPlace(input),
    task: begun.task,
    message: input.message,
  })
  // Why earlier attempts failed (ralph build), written after beginTask cleared feedback.md.
  if (input.feedback?.trim()) await run.state.write('feedback', `${input.feedback.trim()}\n`)
  return { ...begun, message: input.message, structured: null, firstIteration: 1 }
}

/** A task waiting for the user's answer continues with it, keeping its number and pre-task snapshot. */
async function continueWaiting(run: TaskRun): Promise<TaskStart | null> {
  const { input, state } = run
  if ((await state.status()) !== 'waiting') return null
  const counter = await state.taskCounter()
  const waiting = input.runs.latestRun(input.projectDir, counter)
  if (!waiting || waiting.status !== 'waiting') return null
  const message = `${waiting.message}\n\nThe user's answer to the clarification question: ${input.message}`
  run.rec.runContinued(counter, waiting.id, { status: 'running', message })
  run.emit({ type: 'task.started', task: run.task, message: input.message, continued: true })
  await state.setStatus('running')
  // Images sent with the answer join the task's (after its pre-task snapshot, which the task keeps).
  await storeAttachments(input.projectDir, counter, input.images ?? [])
  return {
    message,
    lastSummary: '',
    planBaseline: await prePlan(run),
    structured: null,
    firstIteration: 1,
  }
}

/**
 * An interrupted task goes on where it stopped: its number, pre-task snapshot, run row, request and parse stay;
 * progress.md and task.md are the next iteration's context as usual. Refused before anything changes.
 */
async function resumeInterrupted(run: TaskRun, maxIterations: number): Promise<TaskStart> {
  const { input, state } = run
  const found = await findInterruptedTask(state, input.runs, input.projectDir)
  const refusal = resumeRefusal(found.task, found.lastIteration, maxIterations)
  if (refusal) throw new AppError('invalid-input', refusal)
  run.iteration = found.lastIteration
  run.rec.runContinued(found.task, found.run.id, { status: 'running', reason: null, endedAt: null })
  run.emit({ type: 'task.started', task: run.task, message: found.run.message, continued: true })
  await state.setStatus('running')
  const feedback = (await state.read('feedback')).trim()
  const note = resumeNote(run.task, found.lastIteration)
  await state.write('feedback', feedback ? `${note}\n${feedback}\n` : note)
  return {
    message: found.run.message,
    lastSummary: '',
    planBaseline: await prePlan(run),
    structured: structuredFromTaskMarkdown(await state.read('task'), found.run),
    firstIteration: found.lastIteration + 1,
  }
}

/** plan.tsx as the task's pre-task snapshot holds it: where a continued task's PLAN phase started. */
async function prePlan(run: TaskRun): Promise<string> {
  const pre = await run.engine.show(preTag(run.task), '.ralph/plan.tsx').catch((err: unknown) =>
    // No plan in the snapshot yet: the PLAN phase started from nothing.
    isAppError(err, 'not-found')
      ? null
      : fallbackTo(run.input.logger, `task ${run.task}'s pre-task plan could not be read`, null)(err),
  )
  return pre && !pre.binary ? pre.content.toString('utf8') : ''
}
