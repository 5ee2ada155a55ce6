import { navigate } from '../../app/useRoute'
import { useTimelineUi } from '../timeline'

/**
 * Opens what a task changed in the Timeline's Compare (its pre-task snapshot against its post-task one, or the
 * working copy while there is none), with one file selected when given. One small function, so the full-size diff
 * the timeline is getting can take its place.
 */
export function openTaskFileDiff(projectId: number, task: number, path: string | null = null): void {
  const ui = useTimelineUi.getState()
  ui.openTaskCompare(projectId, task)
  if (path !== null) ui.setFile(path)
  navigate({ page: 'project', projectId, panel: 'timeline' })
}
