import type { userGitCalls } from '../../shared/api/userGit'
import { SnapshotEngine } from '../snapshots'
import { RunsRepo } from '../store/runsRepo'
import { SnapshotsRepo } from '../store/snapshotsRepo'
import { UserCommitsRepo } from '../store/userCommitsRepo'
import {
  commitStates,
  commitTask,
  excludeRalph,
  planTaskCommit,
  readUserGitState,
  RepoTrustBook,
  taskSnapshotsOf,
} from '../userGit'
import type { ApiContext, Handlers } from './types'

/** The task's snapshots, read through a snapshot engine of its own (read-only use: diffs between tags). */
function taskSnapshots(ctx: ApiContext, projectId: number) {
  const project = ctx.resolveProject(projectId)
  const engine = new SnapshotEngine({
    projectDir: project.path,
    index: new SnapshotsRepo(ctx.db).indexFor(projectId),
    logger: ctx.logger,
  })
  return { projectDir: project.path, snapshots: taskSnapshotsOf(engine) }
}

/** The commit this task got earlier (from SQLite): the commit refuses a duplicate while HEAD still holds it. */
const earlierOf = (ctx: ApiContext, projectId: number, task: number) => () =>
  new UserCommitsRepo(ctx.db).latest(projectId, task)?.hash ?? null

/** The repositories' trust record (SQLite): what Ralph saw of each at first sight and around each task. */
const trustOf = (ctx: ApiContext) => new RepoTrustBook(ctx.db)

/**
 * The user's own repository (DESIGN.md §5): read for the header, written only when the user asks ("Commit to my
 * git", and "Hide .ralph/ from git status": a line in its info/exclude).
 */
export const userGitHandlers: Handlers<typeof userGitCalls> = {
  'userGit.status': async ({ projectId }, ctx) =>
    readUserGitState(ctx.resolveProject(projectId).path, trustOf(ctx)),
  'userGit.commits': async ({ projectId }, ctx) => {
    const project = ctx.resolveProject(projectId)
    const rows = new UserCommitsRepo(ctx.db).latestPerTask(projectId)
    const states = await commitStates(
      project.path,
      rows.map((r) => r.hash),
    )
    return {
      commits: rows.map((r) => ({
        task: r.task,
        runId: r.runId,
        hash: r.hash,
        shortHash: states.get(r.hash)?.short ?? r.hash.slice(0, 7),
        branch: r.branch,
        subject: r.subject,
        committedAt: r.committedAt,
        state: states.get(r.hash)?.state ?? 'missing',
      })),
    }
  },
  'userGit.previewCommit': async ({ projectId, task, allow }, ctx) =>
    planTaskCommit({
      task,
      ...taskSnapshots(ctx, projectId),
      earlier: earlierOf(ctx, projectId, task),
      trust: trustOf(ctx),
      allow,
    }),
  'userGit.commitTask': async ({ projectId, task, message, allow, untrustedConfirmed }, ctx) => {
    const { projectDir, snapshots } = taskSnapshots(ctx, projectId)
    return commitTask({
      projectDir,
      task,
      message,
      snapshots,
      logger: ctx.logger,
      trust: trustOf(ctx),
      allow,
      untrustedConfirmed,
      earlier: earlierOf(ctx, projectId, task),
      record: (made) =>
        new UserCommitsRepo(ctx.db).record({
          projectId,
          task,
          runId: new RunsRepo(ctx.db).latestRun(projectDir, task)?.id ?? null,
          ...made,
        }),
    })
  },
  // The user chose "Hide .ralph/ from git status": the only other write to their repository (DESIGN.md §5).
  'userGit.excludeRalph': async ({ projectId }, ctx) => excludeRalph(ctx.resolveProject(projectId).path),
  'userGit.trust': async ({ projectId, fingerprint }, ctx) =>
    trustOf(ctx).confirm(ctx.resolveProject(projectId).path, fingerprint),
}
