import type { TaskView } from '../../shared/queue'
import { renderTemplate } from '../loop/prompts'

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
    notes: task.notes?.trim() || '(none)',
    criteria: task.accept.length
      ? task.accept.map((c) => `- ${c.ref} ${c.kind}: ${c.text}`).join('\n')
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
  return renderTemplate('stage-verify', { id: task.id, attempt, maxAttempts, feedback: feedback.trim() })
}
