import type { userGitCalls } from '../../shared/api/userGit'
import { SnapshotEngine } from '../snapshots'
import { SnapshotsRepo } from '../store/snapshotsRepo'
import { commitTask, planTaskCommit, readUserGitState, taskSnapshotsOf } from '../userGit'
import type { ApiContext, Handlers } from './types'

/** The task's snapshots, read through a snapshot engine of its own (read-only use: diffs between tags). */
function taskSnapshots(ctx: ApiContext, projectId: number) {
  const project = ctx.resolveProject(projectId)
  const engine = new SnapshotEngine({
    projectDir: project.path,
    index: new SnapshotsRepo(ctx.db).indexFor(projectId),
  })
  return { projectDir: project.path, snapshots: taskSnapshotsOf(engine) }
}

/** The user's own repository (DESIGN.md §5): read for the header, written only by "Commit to my git". */
export const userGitHandlers: Handlers<typeof userGitCalls> = {
  'userGit.status': async ({ projectId }, ctx) => readUserGitState(ctx.resolveProject(projectId).path),
  'userGit.previewCommit': async ({ projectId, task }, ctx) =>
    planTaskCommit({ task, ...taskSnapshots(ctx, projectId) }),
  'userGit.commitTask': async ({ projectId, task, message }, ctx) =>
    commitTask({ task, message, ...taskSnapshots(ctx, projectId) }),
}
