import type { TaskOutcome } from './api/tasks'

/** How a finished task is announced outside the window (desktop notification), the same in every host. */
export interface FinishedTask {
  task: number
  status: TaskOutcome
  message: string
}

const MAX_BODY = 180

/**
 * The notification for a task that completed, failed or asks a question; null for one the user stopped (they
 * were there to do it) or one a shutdown interrupted.
 */
export function taskNotice(
  projectName: string,
  finished: FinishedTask,
): { title: string; body: string } | null {
  const what = {
    complete: `Task ${finished.task} complete`,
    failed: `Task ${finished.task} failed`,
    'needs-clarification': `Task ${finished.task} asks a question`,
    stopped: null,
    // The app is closing: nobody is there to read it, and the card says Interrupted at the next start.
    interrupted: null,
  }[finished.status]
  if (what === null) return null
  const body = finished.message.trim().replace(/\s+/g, ' ')
  return {
    title: `${what} · ${projectName}`,
    body: body.length > MAX_BODY ? `${body.slice(0, MAX_BODY - 1)}…` : body,
  }
}
