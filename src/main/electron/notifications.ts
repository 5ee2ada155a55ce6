import { BrowserWindow, Notification } from 'electron'
import type { Core } from '../api/core'
import { buildNotice, type BuildNotice } from '../../shared/queueBuild'
import { taskNotice, type FinishedTask } from '../../shared/taskNotice'

/**
 * The desktop app's notifications (DESIGN.md §15): a task that completes, fails or asks a question, and a work
 * queue build's escalations and completion, while no window of the app is focused, raise a native notification;
 * clicking it brings the window to that project. The renderer's own Notification permission stays denied: only
 * this process announces.
 */
export function announceFinishedTasks(core: Core): () => void {
  if (!Notification.isSupported()) return () => {}
  return core.events.subscribe(({ name, payload }) => {
    if ((name !== 'loop.finished' && name !== 'queue.notice') || BrowserWindow.getFocusedWindow()) return
    const { projectId } = payload as { projectId: number }
    const project = core.services.projects.get(projectId)
    if (!project) return
    const notice =
      name === 'queue.notice'
        ? buildNotice(project.name, (payload as { notice: BuildNotice }).notice)
        : taskNotice(project.name, payload as FinishedTask)
    if (!notice) return
    const route = name === 'queue.notice' ? `#/project/${projectId}?panel=queue` : `#/project/${projectId}`
    const shown = new Notification({ title: notice.title, body: notice.body })
    shown.on('click', () => {
      const win = BrowserWindow.getAllWindows()[0]
      if (!win) return
      if (win.isMinimized()) win.restore()
      win.show()
      win.focus()
      // A hash change navigates inside the app without a page load (will-navigate does not see it).
      void win.webContents.executeJavaScript(`location.hash = ${JSON.stringify(route)}`)
    })
    shown.show()
  })
}
