// Moving a lane's working copy to another commit of the project's store (the merged result, for its verification):
// only the paths that differ are written, and the lane's own store follows (its index and branch), so the lane is
// as if it had been checked out from that commit. Files the lane's index does not track — the setup's node_modules,
// build output, logs — stay where they are.
import { AppError } from '../../shared/errors'
import { BRANCH_REF, withSnapshotLock } from '../snapshots'
import type { Lane } from './laneCopy'

const SHA = /^[0-9a-f]{40}$/

/**
 * Points the lane's working copy, index and branch at `commit`. `read-tree --reset -u` writes only the entries that
 * differ from the index (or whose file was changed since it was staged), removes the files `commit` does not have,
 * and leaves untracked files alone unless `commit` has them. Under the lane's snapshot lock: no snapshot of the
 * lane runs beside it.
 */
export async function moveLaneTo(lane: Lane, commit: string): Promise<void> {
  if (!SHA.test(commit)) throw new AppError('invalid-input', `"${commit}" is not a commit id.`)
  await withSnapshotLock(lane.workDir, 'lane move', async () => {
    await lane.git.run(['read-tree', '--reset', '-u', commit])
    await lane.git.run(['update-ref', BRANCH_REF, commit])
  })
}
