import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import type { RollbackNotice as Notice } from '../../../../shared/api/snapshots'
import { useClient } from '../../app/ClientProvider'
import { callKey, errorMessage } from '../../app/queries'
import { ActionButton, Banner, toast } from '../../ui'
import { useSnapshotStatus } from './queries'
import './timeline.css'

/** A tag in the sentence, kept on one line. */
const Tag = ({ children }: { children: string }) => <span className="rollback-notice-tag">{children}</span>

const What = ({ n }: { n: Notice }) =>
  n.undo ? (
    <>
      An undo (the rollback to <Tag>{n.target}</Tag>)
    </>
  ) : (
    <>
      A rollback to <Tag>{n.target}</Tag>
    </>
  )

/**
 * A rollback or undo that was killed midway (DESIGN.md §5): opening the store finished it, and the timeline says
 * so until dismissed; or it could not be finished safely, and Finish rollback completes it (a safety snapshot of the files
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
          <What n={notice} /> was interrupted and has been finished. The project is at{' '}
          <Tag>{notice.target}</Tag>; <Tag>{notice.safetyTag}</Tag> holds the files from before it.
        </p>
        <ActionButton
          size="sm"
          variant="ghost"
          onAction={() => {
            setDismissed(notice.startedAt)
            // Read: no host shows it again (the store keeps it until one has told the user).
            return client
              .call('snapshots.dismissRollbackNotice', { projectId })
              .catch((err: unknown) => toast.error(`Could not dismiss the notice: ${errorMessage(err)}`))
          }}
        >
          Dismiss
        </ActionButton>
      </Banner>
    )
  }
  return (
    <Banner tone="warn" className="rollback-notice" data-testid="rollback-notice" role="alert">
      <p className="rollback-notice-text">
        <What n={notice} /> was interrupted: the project is partly at <Tag>{notice.target}</Tag>.
        {notice.reason ? ` ${notice.reason}` : ''} Finish rollback saves the files as they are, then restores{' '}
        <Tag>{notice.target}</Tag>.
      </p>
      <ActionButton size="sm" variant="primary" onAction={() => finish.mutateAsync()}>
        {finish.isPending ? 'Finishing…' : 'Finish rollback'}
      </ActionButton>
    </Banner>
  )
}
