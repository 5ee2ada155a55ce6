import { mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import { writeFileAtomic } from '../workspace'
import type { NotificationEvent } from './decide'

export interface BuildNotification {
  event: NotificationEvent
  taskId: string | null
  title: string
  message: string
  /** The file written under .ralph/notifications/ (relative to the project). */
  path: string
}

const titles: Record<NotificationEvent, string> = {
  escalation: 'A task needs you: it was escalated',
  'needs-human': 'A task needs your decision',
  approval: 'A task waits for your approval',
  'budget-warn': 'The build has used 75% of a budget',
  'budget-stop': 'The build stopped at its budget',
  complete: 'The build is complete',
}

/** `<event>-<iso-time>.md`, the time with `-` for `:` so the name is valid on every file system. */
export function notificationFileName(event: NotificationEvent, at: Date): string {
  return `${event}-${at.toISOString().replace(/:/g, '-')}.md`
}

/**
 * Writes `.ralph/notifications/<event>-<time>.md` (seed 004 "Notifications": the event, its time, the context and
 * what a person should do) and returns it for the host to raise as a desktop notification.
 */
export async function writeNotification(
  projectDir: string,
  input: { event: NotificationEvent; taskId: string | null; message: string; mode: string },
  at = new Date(),
): Promise<BuildNotification> {
  const dir = join(projectDir, '.ralph', 'notifications')
  await mkdir(dir, { recursive: true })
  const name = notificationFileName(input.event, at)
  const title = titles[input.event]
  const text = [
    `# ${title}`,
    '',
    `- Event: ${input.event}`,
    `- Time: ${at.toISOString()}`,
    `- Task: ${input.taskId ?? '(the whole build)'}`,
    `- Mode: ${input.mode}`,
    '',
    input.message.trim(),
    '',
  ].join('\n')
  await writeFileAtomic(join(dir, name), text)
  return {
    event: input.event,
    taskId: input.taskId,
    title,
    message: input.message,
    path: `.ralph/notifications/${name}`,
  }
}
