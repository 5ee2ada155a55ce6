// A spare lane taken by a task (issue #38). A lanes build makes the lanes its next tasks will need while its first
// lanes wait for the model; a task that starts takes one instead of checking 2,000 files out on its way: the spare
// is moved to the task's base (only the paths that differ are written, laneMove.ts) and its marker names the task.
import { AppError } from '../../shared/errors'
import type { Lane } from './laneCopy'
import { checkMarker, writeMarker } from './laneFolder'
import { moveLaneTo } from './laneMove'

/**
 * The spare `lane` (made with no task) as the lane of task `task` at `base`, a commit of the project's store. A
 * spare whose folder or marker changed since it was made is refused, saying what was wrong (the caller makes a
 * fresh lane instead).
 */
export async function claimLane(lane: Lane, task: number, base: string): Promise<Lane> {
  const n = lane.marker.lane
  if (lane.marker.task !== null || lane.marker.state !== 'ready')
    throw new AppError(
      'invalid-input',
      `Lane ${n} is not a spare lane (it was made for task ${lane.marker.task}).`,
    )
  const check = await checkMarker(lane.dir, lane.marker.projectId, n)
  if (!check.ok) throw new AppError('invalid-input', `Spare lane ${n} cannot be used: ${check.reason}.`)
  await moveLaneTo(lane, base)
  const marker = { ...check.marker, task, base }
  await writeMarker(lane.dir, marker)
  return { ...lane, marker }
}
