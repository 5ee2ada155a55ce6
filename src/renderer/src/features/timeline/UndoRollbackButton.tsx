import { Undo2 } from 'lucide-react'
import { useClient } from '../../app/ClientProvider'
import { ActionButton } from '../../ui'
import { useSnapshotStatus } from './queries'
import { tagWords, runUndo } from './undoToast'

/**
 * The rollback that can still be undone: the newest snapshot is its safety snapshot and the folder still stands at
 * its target, so nothing else has changed the project since. Null otherwise.
 */
export function useUndoableRollback(projectId: number): { target: string } | null {
  const status = useSnapshotStatus(projectId).data
  const latest = status?.latest
  if (!latest || latest.kind !== 'safety' || latest.rollbackTarget === null) return null
  if (status.position?.tag !== latest.rollbackTarget) return null
  return { target: latest.rollbackTarget }
}

/**
 * "Undo rollback", for as long as the last rollback is what the folder shows (issue 37: not only the toast's
 * 30 seconds): it goes back to the files from before it, through the same undo as the toast's.
 */
export function UndoRollbackButton({ projectId }: { projectId: number }) {
  const client = useClient()
  const undoable = useUndoableRollback(projectId)
  if (!undoable) return null
  return (
    <ActionButton
      size="sm"
      icon={<Undo2 size={13} aria-hidden />}
      title={`Go back to the files as they were before the rollback to ${tagWords(undoable.target)}`}
      onAction={() => runUndo(client, projectId)}
    >
      Undo rollback
    </ActionButton>
  )
}
