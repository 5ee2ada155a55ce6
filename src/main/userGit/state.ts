import type { UserGitState } from '../../shared/api/userGit'
import { gitError, headCommit, openUserRepo, operationInProgress } from './repo'

/** Branch, HEAD, changed-file counts and any stopped merge/rebase/cherry-pick: read only, for display. */
export async function readUserGitState(projectDir: string): Promise<UserGitState> {
  const repo = await openUserRepo(projectDir)
  if (!repo) return { repo: false }
  try {
    const [status, head, operation] = await Promise.all([
      repo.git.status(),
      headCommit(repo),
      operationInProgress(repo),
    ])
    const detached = status.detached
    return {
      repo: true,
      branch: detached ? null : status.current,
      detached,
      unborn: head === null,
      head: head === null ? null : head.slice(0, 7),
      changedFiles: status.files.length,
      stagedFiles: status.files.filter((f) => f.index !== ' ' && f.index !== '?' && f.index !== '!').length,
      operation,
    }
  } catch (err) {
    throw gitError(err, 'read your repository’s status')
  }
}
