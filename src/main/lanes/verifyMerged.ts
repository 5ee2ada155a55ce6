// Verification again on the merged tree (issue #38, seam 4): a merge that is clean as text can still be wrong, so
// the merged result is verified before it counts, in the task's own lane moved to the merged commit (its setup's
// node_modules and build output stay), with a new nonce. The project's deterministic checks run there on the merged
// files, and the judge sees the change from the integration state to the merged result. The lane's store gets two
// tags for the verification's diff, removed again afterwards; the user's folder and the project's tags are never
// written.
import { AppError, isAppError } from '../../shared/errors'
import { acquireTaskLock, ShadowGit, SnapshotEngine, storePaths } from '../snapshots'
import { verifyTask, type VerifyRequest, type VerifyResult } from '../verify'
import { checkProjectFolder, noteFailure, type Logger } from '../workspace'
import type { Lane } from './laneCopy'
import { moveLaneTo } from './laneMove'
import { assertLaneOfProject } from './laneOwner'
import { laneEnv } from './ports'

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
  /** The nonce of the task's own verification in the lane: the merged verification must be sealed with another. */
  firstNonce?: string
}

/** The lane store's tags for the verification's diff (plain snapshot tag names, so the lane's engine reads them). */
export const MERGED_FROM_TAG = 'merge-verify-from'
export const MERGED_TO_TAG = 'merge-verify-to'

const SHA = /^[0-9a-f]{40}$/

/**
 * Moves the lane to `merged` and verifies the change integration→merged there (DET commands run in the lane, in its
 * sandbox, with its RALPH_LANE* environment). The caller holds the user's project's task lock, as for runInLane,
 * and leaves `runCommand` unset (a command runner of its own would not run in the lane). The verdicts are recorded
 * against the user's project (`recordAs`), whatever the caller gives.
 */
export async function verifyMergedInLane(input: VerifyMergedInput): Promise<VerifyResult> {
  const { lane, projectDir: given, integration, merged, verify = verifyTask, firstNonce, ...request } = input
  const projectDir = checkProjectFolder(given)
  await assertLaneOfProject(lane, projectDir)
  const projectGit = new ShadowGit(storePaths(projectDir).gitDir, projectDir)
  const [from, to] = await Promise.all([
    projectCommit(projectGit, integration, 'integration'),
    projectCommit(projectGit, merged, 'merged'),
  ])
  // The lane's task lock, held throughout: no loop runs in the lane meanwhile (a running one is refused as busy).
  const lock = await acquireTaskLock(lane.workDir, 'merged verification').catch((err: unknown) => {
    throw isAppError(err, 'busy')
      ? new AppError(
          'busy',
          `Lane ${lane.marker.lane} is still running a task: verify its merge once the task has finished.`,
          err.details,
        )
      : err
  })
  try {
    await moveLaneTo(lane, to)
    await tagForVerify(lane, from, to)
    try {
      return await verifySealedAnew(verify, firstNonce, {
        ...request,
        projectDir: lane.workDir,
        fromTag: MERGED_FROM_TAG,
        toTag: MERGED_TO_TAG,
        engine: new SnapshotEngine({ projectDir: lane.workDir, logger: request.logger, taskLock: lock }),
        // The lane's number and ports, as every command of the lane's run had them.
        env: { ...(request.env ?? process.env), ...laneEnv(lane.marker.lane) },
        // Its verdicts are the user's project's, like the lane's run row.
        recordAs: { projectPath: projectDir },
      })
    } finally {
      await untag(lane, request.logger)
    }
  } finally {
    await lock
      .release()
      .catch((err: unknown) =>
        noteFailure(request.logger, `Lane ${lane.marker.lane}: its task lock stays`, err),
      )
  }
}

/**
 * Runs the verification, which draws its own nonce. Meeting the lane's first nonce again is chance (one in
 * millions): it is made once more, and refused if the nonce comes back again.
 */
async function verifySealedAnew(
  verify: typeof verifyTask,
  firstNonce: string | undefined,
  req: VerifyRequest,
): Promise<VerifyResult> {
  const result = await verify(req)
  if (firstNonce === undefined || result.nonce !== firstNonce) return result
  const again = await verify(req)
  // Both verifications' calls were made (and recorded as usage): the result counts the cost of both.
  if (again.nonce !== firstNonce)
    return { ...again, costUsd: Math.round((result.costUsd + again.costUsd) * 1e8) / 1e8 }
  throw new AppError(
    'internal',
    'The merged verification was sealed twice with the nonce of the task’s first verification: it does not count.',
  )
}

/** The commit `ref` names in the project's store; a clear error when it is not there. */
async function projectCommit(git: ShadowGit, ref: string, what: string): Promise<string> {
  if (ref.startsWith('-') || ref.trim() === '')
    throw new AppError('invalid-input', `"${ref}" is not a snapshot commit (the ${what} commit).`)
  const res = await git.run(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], { okCodes: [0, 1, 128] })
  const sha = res.stdout.toString('utf8').trim()
  if (res.code !== 0 || !SHA.test(sha))
    throw new AppError('not-found', `The ${what} commit "${ref}" is not in the project's snapshot store.`)
  return sha
}

/** Both tags in one transaction, replacing any a killed verification left. */
async function tagForVerify(lane: Lane, from: string, to: string): Promise<void> {
  await lane.git.run(['update-ref', '--stdin'], {
    input: `update refs/tags/${MERGED_FROM_TAG} ${from}\nupdate refs/tags/${MERGED_TO_TAG} ${to}\n`,
  })
}

async function untag(lane: Lane, logger: Logger): Promise<void> {
  await lane.git
    .run(['update-ref', '--stdin'], {
      input: `delete refs/tags/${MERGED_FROM_TAG}\ndelete refs/tags/${MERGED_TO_TAG}\n`,
    })
    .catch((err: unknown) => noteFailure(logger, `Lane ${lane.marker.lane}: its verification tags stay`, err))
}
