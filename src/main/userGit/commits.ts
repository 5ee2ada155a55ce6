// Where the commits "Commit to my git" made stand in the user's repository now (read only, with simple-git).
import { GitError } from 'simple-git'
import type { UserCommit } from '../../shared/api/userGit'
import { gitError, headCommit, openUserRepo, type UserRepo } from './repo'

export type CommitState = UserCommit['state']

export interface CommitStanding {
  state: CommitState
  /** Git's short hash (longer than 7 where 7 would be ambiguous); the first 7 characters when it is missing. */
  short: string
}

/**
 * Each hash's state against the checked-out HEAD: `on-branch` when HEAD contains it, `off-branch` when the
 * repository still has it but HEAD does not (a `git reset` took it away, or another branch is checked out), and
 * `missing` when the repository no longer has it (or the folder is no longer in a repository).
 */
export async function commitStates(
  projectDir: string,
  hashes: string[],
): Promise<Map<string, CommitStanding>> {
  const out = new Map<string, CommitStanding>()
  if (hashes.length === 0) return out
  const repo = await openUserRepo(projectDir)
  if (!repo) {
    for (const h of hashes) out.set(h, { state: 'missing', short: h.slice(0, 7) })
    return out
  }
  const head = await headCommit(repo)
  await Promise.all(
    hashes.map(async (h) => {
      out.set(h, await stateOf(repo, h, head))
    }),
  )
  return out
}

/** Where one commit stands; `head` is HEAD's full hash (null on an unborn branch). */
export async function stateOf(repo: UserRepo, hash: string, head: string | null): Promise<CommitStanding> {
  try {
    // -q: a missing object prints nothing and fails quietly, which simple-git resolves as an empty answer.
    const short = (await repo.git.raw(['rev-parse', '--verify', '-q', '--short', `${hash}^{commit}`])).trim()
    if (!short || !hash.startsWith(short)) return { state: 'missing', short: hash.slice(0, 7) }
    if (head === null) return { state: 'off-branch', short }
    if (head === hash) return { state: 'on-branch', short }
    // The merge base of an ancestor and HEAD is the ancestor itself. (`merge-base --is-ancestor` answers by exit
    // code alone, which simple-git does not report when git writes nothing to stderr.)
    const base = (await repo.git.raw(['merge-base', hash, head]).catch(noCommonBase)).trim()
    return { state: base === hash ? 'on-branch' : 'off-branch', short }
  } catch (err) {
    throw gitError(err, 'read your repository')
  }
}

/** Unrelated histories: git answers "no merge base" by failing; a git that cannot run is a real failure. */
function noCommonBase(err: unknown): string {
  if (err instanceof GitError) return ''
  throw err
}
