import type { TaskView } from '../../shared/queue'
import { clipLines } from '../plan'
import { renderTemplate } from '../loop'

/**
 * A queue task's notes and criteria are written by the model that planned the spec, and the verifier's feedback
 * quotes the model's work: each is capped so task.md and feedback.md, which every iteration reads, stay bounded.
 */
export const TASK_NOTES_CHARS = 8_000
export const TASK_CRITERIA_CHARS = 8_000
export const RETRY_FEEDBACK_CHARS = 16_000
const READ_QUEUE = 'read .ralph/plan.jsonl with read_file for the whole task'

/** The request the task parser reads for a queue task: its name, notes and criteria, as a person would write it. */
export function taskMessage(task: TaskView): string {
  const parts = [task.name]
  if (task.notes) parts.push(task.notes)
  if (task.accept.length) {
    parts.push(
      `Acceptance criteria:\n${task.accept.map((c) => `- ${c.ref} ${c.kind}: ${c.text}`).join('\n')}`,
    )
  }
  return parts.join('\n\n')
}

/** The queue task's section of task.md (resources/prompts/stage-build.md), which every iteration reads. */
export function taskContext(task: TaskView, attempt: number): string {
  return renderTemplate('stage-build', {
    id: task.id,
    attempt,
    spec: task.spec,
    name: task.name,
    notes: clipLines(task.notes?.trim() || '(none)', TASK_NOTES_CHARS, READ_QUEUE),
    criteria: task.accept.length
      ? clipLines(
          task.accept.map((c) => `- ${c.ref} ${c.kind}: ${c.text}`).join('\n'),
          TASK_CRITERIA_CHARS,
          READ_QUEUE,
        )
      : "- (none: the project's tests, lint and the deterministic checks decide)",
  })
}

/** feedback.md for the attempt after a rejected one (resources/prompts/stage-verify.md). */
export function retryFeedback(
  task: TaskView,
  attempt: number,
  maxAttempts: number,
  feedback: string,
): string {
  return renderTemplate('stage-verify', {
    id: task.id,
    attempt,
    maxAttempts,
    feedback: clipLines(feedback.trim(), RETRY_FEEDBACK_CHARS, 'the verifier wrote more than a prompt holds'),
  })
}
