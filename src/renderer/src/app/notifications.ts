import { buildNotice } from '../../../shared/queueBuild'
import { taskNotice } from '../../../shared/taskNotice'
import type { Client } from '../api'
import { isAppError } from '../../../shared/errors'
import { fallbackTo, noteFailure } from './failures'
import { navigate } from './useRoute'

/** What the browser offers; the global `Notification` in the web host, a fake in component tests. */
export interface NotificationApi {
  permission: NotificationPermission
  requestPermission(): Promise<NotificationPermission>
  new (title: string, options?: NotificationOptions): Notification
}

const browserApi = (): NotificationApi | null =>
  typeof Notification === 'undefined' ? null : (Notification as unknown as NotificationApi)

/** A project removed meanwhile has nothing to announce; any other failure is noted and the notice dropped. */
const unannounced = (err: unknown): void => {
  if (!isAppError(err, 'not-found')) noteFailure('a desktop notification was not shown.', err)
}

/**
 * The web host's desktop notifications (DESIGN.md §15): a task that completes, fails or asks a question while
 * the page is not focused is announced; clicking it brings the page to that project. The desktop app announces
 * from its main process instead (src/main/electron/notifications.ts), so main.tsx starts this only in a browser.
 */
export function startBrowserNotifications(
  client: Client,
  api: NotificationApi | null = browserApi(),
  hasFocus: () => boolean = () => document.hasFocus(),
): () => void {
  if (!api) return () => {}
  // A build from the Queue panel announces what its notification files say (escalations, pauses, completion).
  const offBuild = client.on('queue.notice', ({ projectId, notice }) => {
    if (hasFocus() || api.permission !== 'granted') return
    void client
      .call('projects.get', { projectId })
      .then((project) => {
        const { title, body } = buildNotice(project.name, notice)
        const shown = new api(title, { body, tag: `ralph-build-${projectId}-${notice.event}` })
        shown.onclick = () => {
          window.focus()
          navigate({ page: 'project', projectId, panel: 'queue' })
          shown.close()
        }
      })
      .catch(unannounced)
  })
  const offTasks = client.on('loop.finished', ({ projectId, task, status, message }) => {
    if (hasFocus() || api.permission !== 'granted') return
    void client
      .call('projects.get', { projectId })
      .then((project) => {
        const notice = taskNotice(project.name, { task, status, message })
        if (!notice) return
        const shown = new api(notice.title, { body: notice.body, tag: `ralph-task-${projectId}` })
        shown.onclick = () => {
          window.focus()
          navigate({ page: 'project', projectId })
          shown.close()
        }
      })
      .catch(unannounced)
  })
  return () => {
    offBuild()
    offTasks()
  }
}

/**
 * Asks once for permission, from a user's gesture (browsers ignore requests made without one): the first task
 * sent is when a notification starts to matter.
 */
export function askForNotificationsOnce(api: NotificationApi | null = browserApi()): void {
  if (api && api.permission === 'default' && !window.ralph)
    void api
      .requestPermission()
      .catch(
        fallbackTo('the browser refused to ask for notification permission; none will be shown.', undefined),
      )
}
