import type { RepoTrust, UserGitState } from '../../shared/api/userGit'
import { gitError, headCommit, openUserRepo, operationInProgress } from './repo'

/**
 * Branch, HEAD, changed-file counts (the project's `.ralph/` left out: Ralph's own files), any stopped merge/rebase/cherry-pick and the repository's trust: read only, for
 * display, with a neutral git (nothing the repository's config or hooks name runs, trusted or not).
 */
export async function readUserGitState(
  projectDir: string,
  trust: { current(projectDir: string): Promise<RepoTrust> },
): Promise<UserGitState> {
  const repo = await openUserRepo(projectDir)
  if (!repo) return { repo: false }
  const trusted = await trust.current(projectDir)
  try {
    const ralph = `${repo.prefix}.ralph`
    const [status, head, operation, ralphUntracked] = await Promise.all([
      repo.git.status(['--ignore-submodules=all']),
      headCommit(repo),
      operationInProgress(repo),
      // Each of Ralph's files git lists as untracked (status shows the folder as one entry): none once the user
      // chose to hide .ralph/ (info/exclude) or ignores it themselves.
      repo.git
        .raw(['ls-files', '--others', '--exclude-standard', '-z', '--', `${ralph}/`])
        .then((out) => out.split('\0').filter(Boolean).length),
    ])
    const detached = status.detached
    // Ralph's own files (the project's .ralph/, which Ralph writes) are not the user's work: counting them would
    // show a clean repository as "13 changed" right after opening. They are counted apart (`ralphUntracked`), so
    // a repository that lists them is never called clean; Ralph writes .git/info/exclude only when asked.
    const files = status.files.filter((f) => f.path !== ralph && !f.path.startsWith(`${ralph}/`))
    return {
      repo: true,
      branch: detached ? null : status.current,
      detached,
      unborn: head === null,
      head: head === null ? null : head.slice(0, 7),
      changedFiles: files.length,
      stagedFiles: files.filter((f) => f.index !== ' ' && f.index !== '?' && f.index !== '!').length,
      ralphUntracked,
      operation,
      trust: trusted,
    }
  } catch (err) {
    throw gitError(err, 'read your repository’s status')
  }
}
