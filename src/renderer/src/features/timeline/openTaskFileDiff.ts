import { useProjectUi } from '../../app/projectUi'
import { navigate } from '../../app/useRoute'
import { useTimelineUi } from './timelineUi'

/**
 * Opens one changed file of a task full size: Compare on the task's task-N-pre → task-N-post (the working copy
 * while the task has no post snapshot yet), that file chosen, in the large Compare dialog over the project page;
 * the side panel (opened if it was folded away) shows the Timeline's Compare behind it, so closing the dialog
 * (Esc) leaves the same range there. For other features (the task card's changed-file rows):
 * `openTaskFileDiff(projectId, task, 'src/app.js')`.
 */
export function openTaskFileDiff(projectId: number, task: number, path: string): void {
  useTimelineUi.getState().openTaskFile(projectId, task, path)
  useProjectUi.getState().setSidePanelCollapsed(false)
  navigate({ page: 'project', projectId, panel: 'timeline' })
}
