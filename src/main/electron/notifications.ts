import { BrowserWindow, Notification } from 'electron'
import type { Core } from '../api/core'
import { taskNotice, type FinishedTask } from '../../shared/taskNotice'

/**
 * The desktop app's notifications (DESIGN.md §15): a task that completes, fails or asks a question while no
 * window of the app is focused raises a native notification; clicking it brings the window to that project.
 * The renderer's own Notification permission stays denied: only this process announces.
 */
export function announceFinishedTasks(core: Core): () => void {
  if (!Notification.isSupported()) return () => {}
  return core.events.subscribe(({ name, payload }) => {
    if (name !== 'loop.finished' || BrowserWindow.getFocusedWindow()) return
    const { projectId, ...finished } = payload as FinishedTask & { projectId: number }
    const project = core.services.projects.get(projectId)
    const notice = project ? taskNotice(project.name, finished) : null
    if (!notice) return
    const shown = new Notification({ title: notice.title, body: notice.body })
    shown.on('click', () => {
      const win = BrowserWindow.getAllWindows()[0]
      if (!win) return
      if (win.isMinimized()) win.restore()
      win.show()
      win.focus()
      // A hash change navigates inside the app without a page load (will-navigate does not see it).
      void win.webContents.executeJavaScript(`location.hash = ${JSON.stringify(`#/project/${projectId}`)}`)
    })
    shown.show()
  })
}
