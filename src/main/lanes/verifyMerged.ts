// Verification again on the merged tree (issue #38, seam 4): a clean merge as text can still be wrong, so the merged
// result is verified in the task's lane, moved to the merged commit, with a new nonce before it counts.
import { AppError } from '../../shared/errors'
import type { VerifyRequest, VerifyResult, verifyTask } from '../verify'
import type { Lane } from './laneCopy'

export interface VerifyMergedInput
  extends Omit<VerifyRequest, 'projectDir' | 'fromTag' | 'toTag' | 'engine'> {
  /** The task's lane (its setup already ran there: node_modules etc. stay). */
  lane: Lane
  /** The user's project: its snapshot store holds both commits. */
  projectDir: string
  /** The integration state the task's result was merged onto (a commit of the project's store). */
  integration: string
  /** The merged result (a commit of the project's store). */
  merged: string
  /** The verification itself; tests may inject their own. */
  verify?: typeof verifyTask
}

/** Moves the lane to `merged` and verifies the change integration→merged there (DET commands run in the lane). */
export async function verifyMergedInLane(input: VerifyMergedInput): Promise<VerifyResult> {
  await Promise.resolve()
  throw new AppError('internal', `not built yet (lane ${input.lane.marker.lane})`)
}
