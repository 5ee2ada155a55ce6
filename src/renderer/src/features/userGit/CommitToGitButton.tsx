import { GitCommitHorizontal } from 'lucide-react'
import { useState } from 'react'
import type { TaskCardDto } from '../../../../shared/api/chat'
import { Button } from '../../ui'
import { CommitDialog } from './CommitDialog'
import { useUserGitStatus } from './queries'
import { committedKey, useUserGitUi } from './userGitUi'

/**
 * A completed task's "Commit to my git", when the project is in a git repository; once committed (in this
 * session), the commit's short hash instead.
 */
export function CommitToGitButton({ projectId, card }: { projectId: number; card: TaskCardDto }) {
  const repo = useUserGitStatus(projectId).data?.repo ?? false
  const task = card.task
  const committed = useUserGitUi((s) =>
    task === null ? undefined : s.committed[committedKey(projectId, task)],
  )
  const [open, setOpen] = useState(false)
  if (task === null || card.status !== 'complete' || !repo) return null
  if (committed) {
    return (
      <span className="commit-done" data-testid="task-commit" title={`Committed to ${committed.branch}`}>
        <GitCommitHorizontal size={13} aria-hidden />
        Committed <code>{committed.hash}</code>
      </span>
    )
  }
  return (
    <>
      <Button
        size="sm"
        icon={<GitCommitHorizontal size={13} aria-hidden />}
        title="One commit of this task’s changed files on your current branch (never pushed)"
        onClick={() => setOpen(true)}
      >
        Commit to my git
      </Button>
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
