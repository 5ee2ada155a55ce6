import { History } from 'lucide-react'
import { snapshotTags } from '../../../../shared/api/snapshots'
import { Button } from '../../ui'
import { UndoRollbackButton } from '../timeline'

/**
 * A completed task whose work a rollback took off disk (issue 37): says so, and offers the two ways back — Undo
 * of that rollback while it is the last thing that happened, and Restore (a rollback to the task's post snapshot,
 * previewed like any other).
 */
export function RolledBackNote({
  projectId,
  task,
  onRestore,
}: {
  projectId: number
  task: number
  onRestore(tag: string): void
}) {
  return (
    <div className="task-card-rolled-back-note" role="note">
      <p>Rolled back — these changes are no longer on disk.</p>
      <div className="task-card-rolled-back-actions">
        <UndoRollbackButton projectId={projectId} />
        <Button
          size="sm"
          icon={<History size={13} aria-hidden />}
          title={`Bring the files back to how task ${task} left them (${snapshotTags.taskPost(task)}); you see what changes first`}
          onClick={() => onRestore(snapshotTags.taskPost(task))}
        >
          Restore
        </Button>
      </div>
    </div>
  )
}
