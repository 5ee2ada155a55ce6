import { GitCommitHorizontal } from 'lucide-react'
import { useState } from 'react'
import type { TaskCardDto } from '../../../../shared/api/chat'
import type { UserCommit } from '../../../../shared/api/userGit'
import { Button } from '../../ui'
import { CommitDialog } from './CommitDialog'
import { useUserCommits, useUserGitStatus } from './queries'

const lost: Record<UserCommit['state'], string> = {
  'on-branch': '',
  'off-branch': 'no longer on this branch',
  missing: 'no longer in your repository',
}

/**
 * A completed task's "Commit to my git", when the project is in a git repository. Once committed, the commit's
 * short hash instead (read from the app's database, so also after a restart); when that commit has since left the
 * branch (a `git reset`, another branch checked out), the hash with the words for it, and the button again.
 */
export function CommitToGitButton({ projectId, card }: { projectId: number; card: TaskCardDto }) {
  const repo = useUserGitStatus(projectId).data?.repo ?? false
  const commits = useUserCommits(projectId)
  const task = card.task
  const [open, setOpen] = useState(false)
  if (task === null || card.status !== 'complete' || !repo) return null
  // Until the commits are read, offer nothing: the button might invite a duplicate of a commit made earlier.
  if (commits.isPending) return null
  const committed = commits.data?.commits.find((c) => c.task === task)
  const when = committed ? new Date(committed.committedAt).toLocaleString() : ''
  const onBranch = committed?.state === 'on-branch'
  // One shape for every state, the dialog last: it stays mounted through its own commit, while the card turns to
  // "Committed" before the dialog closes.
  return (
    <>
      {committed ? (
        <span
          className={onBranch ? 'commit-done' : 'commit-done commit-lost'}
          data-testid="task-commit"
          title={
            onBranch
              ? `Committed to ${committed.branch} on ${when}: ${committed.subject}`
              : `Committed to ${committed.branch} on ${when}: ${committed.subject}. Your branch no longer holds it (reset away, or another branch is checked out).`
          }
        >
          <GitCommitHorizontal size={13} aria-hidden />
          Committed <code>{committed.shortHash}</code>
          {onBranch ? null : ` (${lost[committed.state]})`}
        </span>
      ) : null}
      {onBranch ? null : (
        <Button
          size="sm"
          icon={<GitCommitHorizontal size={13} aria-hidden />}
          title="One commit of this task’s changed files on your current branch (never pushed)"
          onClick={() => setOpen(true)}
        >
          Commit to my git
        </Button>
      )}
      {/* Only while open: a conversation of many tasks does not keep a dialog per card. */}
      {open ? (
        <CommitDialog
          projectId={projectId}
          task={task}
          title={card.title}
          summary={card.outcome}
          open={open}
          onOpenChange={setOpen}
        />
      ) : null}
    </>
  )
}
