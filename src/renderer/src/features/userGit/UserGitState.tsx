import { GitBranch } from 'lucide-react'
import { useQueryClient } from '@tanstack/react-query'
import { useEffect } from 'react'
import type { UserGitState as State } from '../../../../shared/api/userGit'
import { callKey } from '../../app/queries'
import { Badge } from '../../ui'
import { useUserGitStatus } from './queries'
import { HideRalph } from './HideRalph'
import { UntrustedRepo } from './TrustRepo'
import './userGit.css'

const operationLabel = {
  merge: 'Merging',
  rebase: 'Rebasing',
  'cherry-pick': 'Cherry-picking',
  revert: 'Reverting',
} as const

/**
 * The header's words for the repository: "main · 3 changed". Ralph's own files are not counted among the user's
 * changes, but a repository whose `git status` lists them is never called clean: ".ralph/ untracked".
 */
export function describeRepo(state: Extract<State, { repo: true }>): { where: string; changes: string } {
  const where = state.detached ? `detached ${state.head ?? 'HEAD'}` : (state.branch ?? 'HEAD')
  const ralph = state.ralphUntracked > 0
  const changes = state.unborn
    ? 'no commits yet'
    : state.changedFiles === 0
      ? ralph
        ? '.ralph/ untracked'
        : 'clean'
      : `${state.changedFiles} changed${ralph ? ' + .ralph/' : ''}`
  return { where, changes }
}

/** The chip's tooltip: what it counts, and how Ralph's own files are counted. */
export function chipTitle(where: string, changes: string, ralphUntracked = 0): string {
  const ralph =
    ralphUntracked > 0
      ? ` Git also lists ${ralphUntracked === 1 ? '1 file' : `${ralphUntracked} files`} of Ralph’s own (the ` +
        `project’s .ralph/ folder) as untracked: they are not counted as your changes, and “Hide .ralph/ from ` +
        `git status” adds .ralph/ to your .git/info/exclude if you want.`
      : ''
  return (
    `Your git repository: ${where}, ${changes}. The count is what git status lists, without Ralph’s own files ` +
    `(the project’s .ralph/ folder), which are not counted.${ralph} Ralph only reads your repository; it commits ` +
    `only when you choose “Commit to my git”, and never pushes.`
  )
}

/**
 * Room for the icon, the separator and the count (ch: the chip's own font), never more than the title row: the
 * branch gives way first, and the chip never pushes into the header's buttons.
 */
export const chipMinWidth = (changes: string, hideButton = false) =>
  `min(calc(${changes.length + 2}ch + ${hideButton ? 13 + HIDE_BUTTON_PX : 13}px + ${hideButton ? 4 : 3} * var(--space-1) + 2 * var(--space-2)), 100%)`

/** The "Hide .ralph/" button's width inside the chip (userGit.css). */
const HIDE_BUTTON_PX = 20

/**
 * The user's own repository in the project header: branch (or detached HEAD), how many files `git status` lists,
 * (without Ralph's own `.ralph/` files), a merge/rebase/cherry-pick in progress, and "Untrusted" when a task created the repository or changed its config
 * or hooks. Nothing at all when the project is not in a git repository.
 */
export function UserGitState({ projectId }: { projectId: number }) {
  const { data, refetch } = useUserGitStatus(projectId)
  const queryClient = useQueryClient()
  // TanStack refetches when the page becomes visible; a desktop window that only regains focus (the user was in
  // their terminal, committing or resetting) is read again here, with the task cards' commits.
  useEffect(() => {
    const onFocus = () => {
      void refetch()
      void queryClient.invalidateQueries({ queryKey: callKey('userGit.commits', { projectId }) })
    }
    window.addEventListener('focus', onFocus)
    return () => window.removeEventListener('focus', onFocus)
  }, [refetch, queryClient, projectId])
  if (!data?.repo) return null
  const { where, changes } = describeRepo(data)
  const staged = data.stagedFiles > 0 ? `, ${data.stagedFiles} staged` : ''
  return (
    <div
      className={data.trust.trusted ? 'user-git' : 'user-git user-git-warn'}
      role="group"
      aria-label="Your git"
      data-testid="user-git-state"
      title={chipTitle(where, changes + staged, data.ralphUntracked)}
      // However narrow the header gets (a build adds to it), the chip keeps its icon and its count; only the
      // branch's name gives way, with an ellipsis.
      style={{ minWidth: chipMinWidth(changes, data.ralphUntracked > 0) }}
    >
      <GitBranch size={13} aria-hidden />
      <span className="user-git-branch">{where}</span>
      <span className="user-git-sep" aria-hidden>
        ·
      </span>
      <span className="user-git-changes">{changes}</span>
      {data.operation ? <Badge tone="warn">{operationLabel[data.operation]}</Badge> : null}
      {data.ralphUntracked > 0 ? <HideRalph projectId={projectId} count={data.ralphUntracked} /> : null}
      {data.trust.trusted ? null : <UntrustedRepo projectId={projectId} trust={data.trust} />}
    </div>
  )
}
