import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import type { RollbackNotice as Notice } from '../../../../shared/api/snapshots'
import { useClient } from '../../app/ClientProvider'
import { callKey, errorMessage } from '../../app/queries'
import { Banner, Button, toast } from '../../ui'
import { useSnapshotStatus } from './queries'
import './timeline.css'

const what = (n: Notice): string =>
  n.undo ? `An undo (the rollback to ${n.target})` : `A rollback to ${n.target}`

/**
 * A rollback or undo that was killed midway (DESIGN.md §5): opening the store finished it, and the timeline says
 * so once; or it could not be finished safely, and Finish rollback completes it (a safety snapshot of the files
 * as they are is taken first, so nothing made since is lost).
 */
export function RollbackNotice({ projectId }: { projectId: number }) {
  const notice = useSnapshotStatus(projectId).data?.rollbackNotice ?? null
  // Dismissed notices, by when their rollback started: a later interruption shows again.
  const [dismissed, setDismissed] = useState<number | null>(null)
  const client = useClient()
  const queryClient = useQueryClient()
  const finish = useMutation({
    mutationFn: () => client.call('snapshots.finishRollback', { projectId }),
    onSuccess: (report) => {
      void queryClient.invalidateQueries({ queryKey: callKey('snapshots.status', { projectId }) })
      toast.success(`Finished the rollback to ${report.target}`, {
        description: report.safetyTag
          ? `The files as they were are saved as ${report.safetyTag}.`
          : 'The project is at that snapshot again.',
      })
    },
    onError: (err) => toast.error(`Could not finish the rollback: ${errorMessage(err)}`),
  })
  if (!notice || dismissed === notice.startedAt) return null

  if (notice.state === 'finished') {
    return (
      <Banner tone="info" className="rollback-notice" data-testid="rollback-notice" role="status">
        <p className="rollback-notice-text">
          {what(notice)} was interrupted and has been finished. The project is at {notice.target};{' '}
          {notice.safetyTag} holds the files from before it.
        </p>
        <Button size="sm" variant="ghost" onClick={() => setDismissed(notice.startedAt)}>
          Dismiss
        </Button>
      </Banner>
    )
  }
  return (
    <Banner tone="warn" className="rollback-notice" data-testid="rollback-notice" role="alert">
      <p className="rollback-notice-text">
        {what(notice)} was interrupted: the project is partly at {notice.target}.
        {notice.reason ? ` ${notice.reason}` : ''} Finish rollback saves the files as they are, then restores{' '}
        {notice.target}.
      </p>
      <Button size="sm" variant="primary" disabled={finish.isPending} onClick={() => finish.mutate()}>
        {finish.isPending ? 'Finishing…' : 'Finish rollback'}
      </Button>
    </Banner>
  )
}
