// The user's own repository, always through simple-git and safeGit.ts (DESIGN.md §5, §13, §14). Never the shadow
// snapshot store.
import { existsSync } from 'node:fs'
import { isAbsolute, join, resolve } from 'node:path'
import { GitError, type SimpleGit } from 'simple-git'
import { AppError } from '../../shared/errors'
import type { UserGitOperation } from '../../shared/api/userGit'
import { discoveryGitAt, safeGitAt } from './safeGit'

/** The repository that holds a project folder (the folder itself or a parent's). */
export interface UserRepo {
  git: SimpleGit
  /** The work tree's root. */
  top: string
  /** The project folder's path inside the work tree, '' or ending in '/' (as `git rev-parse --show-prefix`). */
  prefix: string
}

/**
 * The repository around `projectDir`, or null when the folder is not inside a git work tree. Its `git` is neutral
 * (safeGit.ts): nothing the repository's config or hooks name runs, whoever wrote them.
 */
export async function openUserRepo(projectDir: string): Promise<UserRepo | null> {
  if (!existsSync(projectDir)) {
    throw new AppError('not-found', `The folder ${projectDir} no longer exists. Open it again.`)
  }
  const found = await findUserRepo(projectDir)
  if (!found) return null
  return { ...found, git: await safeGitAt(found.top, 'neutral') }
}

/** Where the repository around `projectDir` is, found with a neutral git; null outside a work tree. */
export async function findUserRepo(
  projectDir: string,
): Promise<{ top: string; prefix: string; gitDir: string; commonDir: string } | null> {
  let out: string
  try {
    out = await discoveryGitAt(projectDir).raw([
      'rev-parse',
      '--show-toplevel',
      '--show-prefix',
      '--absolute-git-dir',
      '--git-common-dir',
    ])
  } catch (err) {
    const message = errorText(err)
    // Outside a repository, and inside a .git folder or a bare repository: not a work tree we can commit to.
    if (/not a git repository|must be run in a work tree|this operation must be run/i.test(message))
      return null
    throw gitError(err, 'read your repository')
  }
  const [top = '', prefix = '', gitDir = '', common = ''] = out.split('\n')
  if (!top || !gitDir) return null
  return { top, prefix, gitDir, commonDir: resolve(projectDir, common || gitDir) }
}

/** A merge, rebase, cherry-pick or revert that has stopped half-way in the user's repository, or null. */
export async function operationInProgress(repo: UserRepo): Promise<UserGitOperation | null> {
  // --git-path answers for linked worktrees too (their MERGE_HEAD and rebase folders are per worktree).
  const names = ['MERGE_HEAD', 'rebase-merge', 'rebase-apply', 'CHERRY_PICK_HEAD', 'REVERT_HEAD'] as const
  const out = await repo.git.raw(['rev-parse', ...names.flatMap((n) => ['--git-path', n])])
  const paths = out.split('\n').filter(Boolean)
  const present = (i: number) => {
    const p = paths[i]
    return p !== undefined && existsSync(isAbsolute(p) ? p : join(repo.top, p))
  }
  if (present(0)) return 'merge'
  if (present(1) || present(2)) return 'rebase'
  if (present(3)) return 'cherry-pick'
  if (present(4)) return 'revert'
  return null
}

export const operationWords: Record<UserGitOperation, string> = {
  merge: 'a merge',
  rebase: 'a rebase',
  'cherry-pick': 'a cherry-pick',
  revert: 'a revert',
}

/** HEAD's commit, or null on an unborn branch (a repository with no commit yet). */
export async function headCommit(repo: UserRepo): Promise<string | null> {
  try {
    return (await repo.git.raw(['rev-parse', '--verify', '-q', 'HEAD^{commit}'])).trim() || null
  } catch (err) {
    // git answers "no HEAD commit" (an unborn branch) by failing; a git that cannot run is a real failure.
    if (err instanceof GitError) return null
    throw err
  }
}

export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err)
}

/** A failure of the user's git, in words that say what went wrong and what to do. */
export function gitError(err: unknown, doing: string): AppError {
  if (err instanceof AppError) return err
  const text = errorText(err).trim()
  if (/ENOENT|spawn git/i.test(text)) {
    return new AppError(
      'git',
      'Git is not installed or not on the PATH: install git to use your repository here.',
    )
  }
  if (/index\.lock/.test(text)) {
    return new AppError(
      'busy',
      'Another git command is using your repository (its index.lock exists). Wait for it to finish, or remove .git/index.lock if no git is running, then try again.',
    )
  }
  if (/dubious ownership/i.test(text)) {
    return new AppError(
      'git',
      'Git refuses this repository because another user owns it ("dubious ownership"). Add it with git config --global --add safe.directory <path>, then try again.',
    )
  }
  if (/Author identity unknown|Please tell me who you are|empty ident/i.test(text)) {
    return new AppError(
      'config',
      'Git does not know who you are. Set your name and email (git config --global user.name "Your Name" and git config --global user.email you@example.com), then commit again.',
    )
  }
  return new AppError('git', `Could not ${doing}: ${lastLines(text)}`)
}

function lastLines(text: string, max = 12): string {
  const lines = text.split('\n').filter((l) => l.trim())
  return lines.slice(-max).join('\n') || 'git failed without saying why.'
}
