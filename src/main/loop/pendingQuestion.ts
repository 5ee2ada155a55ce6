import { RalphState } from './ralphState'
import type { RunsRepo } from '../store'
import { acquireTaskLock } from '../snapshots'

/** A task waiting for the user's answer to its clarification question. */
export interface PendingQuestion {
  task: number
  runId: number
  title: string | null
  /** The question as the loop asked it (null for a run recorded before the question was kept). */
  question: string | null
}

/**
 * The project's task that waits for an answer, or null: `.ralph/status.txt` says waiting and the run of the
 * task counter's task is waiting. Both must agree; the next Task message continues only then (taskStart.ts).
 */
export async function pendingQuestion(projectDir: string, runs: RunsRepo): Promise<PendingQuestion | null> {
  const state = new RalphState(projectDir)
  if ((await state.status()) !== 'waiting') return null
  const run = runs.latestRun(projectDir, await state.taskCounter())
  if (!run || run.status !== 'waiting') return null
  const waiting = runs.waitingRuns(projectDir).find((w) => w.id === run.id)
  return { task: run.task, runId: run.id, title: run.title, question: waiting?.question ?? null }
}

/**
 * Ends the waiting task as Stopped, as a Stop would (status.txt failed, the run stopped, its pre-task snapshot
 * kept): nothing continues it any more, and the next Task message starts a new task. Holds the task lock while
 * it writes, so no task starts meanwhile. Returns the task it ended, or null when none was waiting.
 */
export async function endWaitingTask(
  projectDir: string,
  runs: RunsRepo,
  why: string,
): Promise<PendingQuestion | null> {
  const lock = await acquireTaskLock(projectDir, 'end the waiting task')
  try {
    const pending = await pendingQuestion(projectDir, runs)
    if (!pending) return null
    await new RalphState(projectDir).setStatus('failed')
    runs.updateRun(pending.runId, { status: 'stopped', reason: 'stopped', detail: why, endedAt: Date.now() })
    return pending
  } finally {
    await lock.release()
  }
}

/**
 * Runs left `waiting` that no task waits on any more (a rollback took status.txt back before the question, a
 * newer task began): they end as Stopped with `why`, so no card says "Waiting for your answer" for ever.
 * Returns the runs it closed.
 */
export async function closeStaleQuestions(
  projectDir: string,
  runs: RunsRepo,
  why: string,
): Promise<{ task: number; runId: number }[]> {
  // The rows first: the loop writes status.txt before it marks a run waiting, so a run read as waiting here has
  // its status.txt saying so already, and the read after it cannot find a question that is still being asked.
  const waiting = runs.waitingRuns(projectDir)
  if (!waiting.length) return []
  const pending = await pendingQuestion(projectDir, runs)
  // Still waiting now (an answer may have continued it meanwhile) and not the question that stands.
  const stale = waiting.filter(
    (run) => run.id !== pending?.runId && runs.getRun(run.id)?.status === 'waiting',
  )
  const now = Date.now()
  for (const run of stale) {
    runs.updateRun(run.id, { status: 'stopped', reason: 'stopped', detail: why, endedAt: now })
  }
  return stale.map((run) => ({ task: run.task, runId: run.id }))
}
