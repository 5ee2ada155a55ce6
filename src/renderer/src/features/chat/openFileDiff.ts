import { navigate } from '../../app/useRoute'
import { useTimelineUi } from '../timeline'

/**
 * The card's Compare: what a task changed in the Timeline's Compare (its pre-task snapshot against its post-task
 * one, or the working copy while there is none). One changed file opens full size instead (timeline's
 * openTaskFileDiff).
 */
export function openTaskCompare(projectId: number, task: number): void {
  useTimelineUi.getState().openTaskCompare(projectId, task)
  navigate({ page: 'project', projectId, panel: 'timeline' })
}
