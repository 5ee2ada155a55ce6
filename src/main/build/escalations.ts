import type { QueueEscalation } from '../../shared/api/queue'
import { AppError } from '../../shared/errors'
import type { MutationResult, TaskEditInput, TaskView } from '../../shared/queue'
import { cancelTask, editTask, queryState, rejectTask, type MutateOptions } from '../queue'
import type { EscalationsRepo } from '../store'
import { escalationHelp } from './decide'

/**
 * What a person does with a task the build escalated (seed 004: `phase: needs_human` until a person acts). The
 * escalation lives in SQLite (migration 013) because the rollback restores plan.jsonl byte for byte, which leaves
 * the task pending with no trace of its failures. These use-cases serve `ralph build --retry` and the Queue panel.
 */

interface Deps {
  projectDir: string
  escalations: EscalationsRepo
}

/** Why the build will not start an escalated task, as the rest of a sentence that begins with the task. */
export function escalatedReason(taskId: string, e: QueueEscalation): string {
  const why =
    e.kind === 'stuck'
      ? 'it got stuck again after a re-plan from scratch'
      : `it failed ${e.failures} time${e.failures === 1 ? '' : 's'}${e.rolledBackTo ? ` and the project was rolled back to ${e.rolledBackTo}` : ''}`
  return (
    `is escalated since ${new Date(e.at).toISOString()} (${why}), so the build does not start it again. ` +
    escalationHelp(taskId)
  )
}

/** `ralph build --retry ID` and the panel's "Retry": the escalation ends and the task gets fresh attempts. */
export async function retryEscalated({
  projectDir,
  escalations,
  id,
}: Deps & { id: string }): Promise<QueueEscalation> {
  const view = await queryState({ projectDir })
  if (!view.tasks.some((t) => t.id === id)) {
    throw new AppError(
      'not-found',
      `${id} is not in the queue (.ralph/plan.jsonl), so there is nothing to retry. \`ralph query tasks\` lists the tasks.`,
    )
  }
  const tombstones = view.tombstones.filter((t) => t.id === id)
  const ended = escalations.retry(projectDir, id, tombstones)
  if (!ended) {
    throw new AppError(
      'invalid-input',
      `${id} is not escalated, so there is nothing to retry: \`ralph build\` starts it when its turn comes.`,
    )
  }
  return ended
}

/** The panel's edit: a change to the task's name, notes or criteria is the user's answer to an escalation. */
export async function editTaskClearing({
  projectDir,
  escalations,
  ...input
}: Deps & TaskEditInput & { options: MutateOptions }): Promise<MutationResult> {
  const before = (await queryState({ projectDir })).tasks.find((t) => t.id === input.id)
  const result = await editTask({ projectDir, ...input })
  const after = result.state.tasks.find((t) => t.id === input.id)
  if (before && after && definition(before) !== definition(after))
    escalations.clear(projectDir, input.id, 'edit')
  return result
}

const definition = (t: TaskView) => JSON.stringify([t.name, t.notes, t.accept.map((c) => [c.kind, c.text])])

/** The panel's remove: a task that is gone has nothing left to escalate. */
export async function removeTaskClearing({
  projectDir,
  escalations,
  id,
  options,
}: Deps & { id: string; options: MutateOptions }): Promise<MutationResult> {
  const result = await cancelTask({ projectDir, id, options })
  escalations.clear(projectDir, id, 'remove')
  return result
}

/** The note a user's re-plan leaves as the task's feedback (and in plan.jsonl's history, as a rejection). */
export const REPLAN_REASON =
  'Re-plan (asked by the user, not a failure): start this task over from a fresh plan instead of continuing the last attempt; re-read the task and its acceptance criteria first.'

/**
 * The panel's "Re-plan" on a done task: back to pending with a note asking for a fresh plan. The format has one
 * way back to pending — a rejection (a tombstone, recorded in the history, its reason the next attempt's
 * feedback) — so that is what it writes; but the rejection is waived first, so it does not count toward the
 * task's failures (it does not bring the task closer to rollback).
 */
export async function replanTask({
  projectDir,
  escalations,
  id,
  note,
  options,
}: Deps & { id: string; note?: string; options: MutateOptions }): Promise<MutationResult> {
  const task = (await queryState({ projectDir })).tasks.find((t) => t.id === id)
  if (!task) {
    throw new AppError('not-found', `${id} is not in the queue, so it cannot be re-planned.`)
  }
  if (task.status !== 'done') {
    throw new AppError(
      'invalid-input',
      `${id} is not done, so there is nothing to re-plan: its next attempt starts from the task as written.`,
    )
  }
  const reason = note?.trim() ? `${REPLAN_REASON} ${note.trim()}` : REPLAN_REASON
  // rejectTask writes the tombstone with the task's done_at and the trimmed reason: the waiver names the same.
  const tombstone = { doneAt: task.doneAt ?? '', reason: reason.trim() }
  escalations.waive(projectDir, id, [tombstone], 'replan')
  try {
    return await rejectTask({ projectDir, id, reason, options })
  } catch (err) {
    escalations.unwaive(projectDir, id, tombstone)
    throw err
  }
}
