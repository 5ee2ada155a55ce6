// Which project a lane belongs to: the one whose snapshot store it borrows its objects from (createLane writes the
// store's objects folder, resolved, into the lane store's `objects/info/alternates`).
import { readFile, realpath } from 'node:fs/promises'
import { join } from 'node:path'
import { AppError } from '../../shared/errors'
import { storePaths } from '../snapshots'
import { ifMissing } from '../workspace'
import type { Lane } from './laneCopy'

/** Refuses a lane that was not made from `projectDir`'s snapshots, or was never finished being made. */
export async function assertLaneOfProject(lane: Lane, projectDir: string): Promise<void> {
  const n = lane.marker.lane
  if (lane.marker.state !== 'ready')
    throw new AppError(
      'invalid-input',
      `Lane ${n} was not finished being made: remove it (ralph lanes clean).`,
    )
  const file = join(lane.storeDir, 'objects', 'info', 'alternates')
  const borrowed = (await readFile(file, 'utf8').catch(ifMissing(''))).trim()
  const objects = await realpath(join(storePaths(projectDir).gitDir, 'objects')).catch(ifMissing(null))
  if (objects === null || borrowed !== objects)
    throw new AppError(
      'invalid-input',
      `Lane ${n} (${lane.dir}) was not made from ${projectDir}'s snapshots: use a lane of this project.`,
    )
}
