import { AppError } from '../../shared/errors'
import { requirementMarkers, type StructuredTask, type TaskType } from '../../shared/task'
import type { RunRow, RunsRepo } from '../store'
import type { RalphState } from './ralphState'

/** The task a resume continues: the project's last task, interrupted, with its run row. */
export interface InterruptedTask {
  task: number
  run: RunRow
  /** The last iteration it started (the one the crash cut short); the resume goes on with the next. */
  lastIteration: number
}

const NEW_TASK = 'Send a new message (ralph run "<message>") to start a new task instead.'

/**
 * The interrupted task of a project, or an error that says why there is none to resume. Call it holding the task
 * lock, after crash recovery: a task whose process died is `interrupted` by then.
 */
export async function findInterruptedTask(
  state: RalphState,
  runs: RunsRepo,
  projectDir: string,
): Promise<InterruptedTask> {
  const task = await state.taskCounter()
  const status = await state.status()
  if (task === 0) {
    throw new AppError('not-found', `This project has no task to resume: none has run yet. ${NEW_TASK}`)
  }
  if (status !== 'interrupted') {
    const why =
      status === 'waiting'
        ? `it waits for your answer to its question. Answer it (ralph run --answer "<answer>", or in the chat) to continue it.`
        : status === 'running'
          ? 'it is still running.'
          : `it ended as ${status || 'unknown'}. ${NEW_TASK}`
    throw new AppError(
      'not-found',
      `Nothing to resume: the project's last task (task ${task}) was not interrupted — ${why}`,
    )
  }
  const run = runs.latestRun(projectDir, task)
  if (!run || run.status !== 'interrupted') {
    throw new AppError(
      'not-found',
      `Task ${task} was interrupted, but this app's database has no interrupted run of it` +
        `${run ? ` (its run is ${run.status})` : ''}, so it cannot be resumed here — was it run with another ` +
        `RALPH_HOME? Resume it from there, or roll back to task-${task}-pre and send the request again.`,
    )
  }
  const fromFile = Number.parseInt((await state.read('iteration')).trim(), 10)
  const lastIteration = Math.max(Number.isFinite(fromFile) ? fromFile : 0, run.iterations)
  return { task, run, lastIteration }
}

/** What the next iteration reads first: the last one was cut short, so its work may be half done. */
export function resumeNote(task: number, lastIteration: number): string {
  return [
    '# Resumed after an interruption',
    '',
    lastIteration > 0
      ? `Ralph was closed while iteration ${lastIteration} of task ${task} was running, so that iteration was cut ` +
        'short: files it was writing may be incomplete. Check the files that matter before you build on them.'
      : `Ralph was closed before task ${task}'s first iteration ran.`,
    '',
  ].join('\n')
}

const types: readonly string[] = ['fresh', 'mutation', 'bugfix', 'needs-clarification']

/**
 * The structured task back from `.ralph/task.md` (renderTaskMarkdown's format) and the run row's type and title,
 * so a resumed task keeps its parse without asking the model again. Null when the task was never parsed.
 */
export function structuredFromTaskMarkdown(text: string, run: RunRow): StructuredTask | null {
  if (!run.type || !types.includes(run.type)) return null
  const section = (name: string) => {
    const start = text.indexOf(`\n## ${name}`)
    if (start < 0) return []
    const body = text
      .slice(start + 1)
      .split('\n')
      .slice(1)
    const end = body.findIndex((l) => l.startsWith('## '))
    return (end < 0 ? body : body.slice(0, end)).map((l) => l.trim()).filter((l) => l.startsWith('- '))
  }
  const requirements: StructuredTask['requirements'] = []
  for (const line of section('Requirements')) {
    const m = /^- \[([A-Z]+)\] (.+?)(?: \(count: (\d+)\))?$/.exec(line)
    if (!m || !(requirementMarkers as readonly string[]).includes(m[1]!)) continue
    // renderTaskMarkdown leaves "(count: n)" out when the description says the number already: read it there.
    const count = m[3] ? Number(m[3]) : Number(/\b(\d+)\b/.exec(m[2]!)?.[1] ?? Number.NaN)
    requirements.push({
      marker: m[1] as StructuredTask['requirements'][number]['marker'],
      description: m[2]!,
      count: Number.isSafeInteger(count) && count > 0 ? count : null,
    })
  }
  const scope = section('Scope')
  const preserve = scope.filter((l) => l.startsWith('- PRESERVE: ')).map((l) => l.slice(12))
  const affected = scope.find((l) => l.startsWith('- AFFECTED FILES: '))
  return {
    type: run.type as TaskType,
    title: run.title ?? `Task ${run.task}`,
    requirements,
    scope: {
      preserve: preserve.filter((p) => p !== '...'),
      affectedFiles: affected
        ? affected
            .slice(18)
            .split(', ')
            .filter((f) => f && f !== '...')
        : [],
    },
    clarification: null,
  }
}
