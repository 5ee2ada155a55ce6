import * as RadixAlertDialog from '@radix-ui/react-alert-dialog'
import { AlertTriangle, Loader2 } from 'lucide-react'
import type { RollbackReportDto } from '../../../../shared/api/snapshots'
import { AppError } from '../../../../shared/errors'
import { useClient } from '../../app/ClientProvider'
import { errorMessage } from '../../app/queries'
import { Banner, Button, toast } from '../../ui'
import { useStopTask } from '../../app/projectQueries'
import { useRollback, useRollbackPreview } from './queries'
import { plural } from './rows'
import './timeline.css'

const SHOWN = 40

/** A short list of paths under a heading; long ones end with "… and N more". */
function PathList({ label, paths, tone }: { label: string; paths: string[]; tone?: 'bad' }) {
  if (paths.length === 0) return null
  const shown = paths.slice(0, SHOWN)
  return (
    <section className="rollback-section">
      <h3 className={tone === 'bad' ? 'rollback-heading tone-bad' : 'rollback-heading'}>
        {label} <span className="muted">({paths.length})</span>
      </h3>
      <ul className="rollback-paths" aria-label={label}>
        {shown.map((p) => (
          <li key={p}>
            <code>{p}</code>
          </li>
        ))}
        {paths.length > shown.length ? (
          <li className="muted">… and {paths.length - shown.length} more</li>
        ) : null}
      </ul>
    </section>
  )
}

/** What the preview says a rollback will do, in the words the dialog uses. */
export function previewGroups(report: RollbackReportDto) {
  return {
    overwritten: report.written.filter((w) => w.change !== 'added').map((w) => w.path),
    restored: report.written.filter((w) => w.change === 'added').map((w) => w.path),
    deleted: report.deleted,
    leftAlone: [...report.leftAlone.map((l) => l.path), ...report.skipped.map((s) => s.path)],
  }
}

/**
 * "Roll back to <tag>" (DESIGN.md §15): the preview of exactly what the rollback will overwrite, delete and
 * restore, what it leaves alone and what cannot come back; confirming shows progress, then a toast with Undo.
 * A refusal (a task is running) stays in the dialog with its message.
 */
export function RollbackDialog({
  projectId,
  tag,
  onClose,
}: {
  projectId: number
  /** The dialog is open while a tag is set. */
  tag: string | null
  onClose(): void
}) {
  const client = useClient()
  const preview = useRollbackPreview(projectId, tag)
  const rollback = useRollback(projectId)
  const stop = useStopTask(projectId)
  const busy = rollback.error instanceof AppError && rollback.error.kind === 'busy'

  const close = () => {
    if (rollback.isPending) return
    rollback.reset()
    onClose()
  }

  const confirm = () => {
    if (tag === null) return
    rollback.mutate(tag, {
      onSuccess: (report) => {
        rollback.reset()
        onClose()
        const changed = report.written.length + report.deleted.length
        toast.success(`Rolled back to ${report.target}`, {
          description: `${plural(changed, 'file')} changed${report.safetyTag ? `; the state before is saved as ${report.safetyTag}` : ''}.`,
          duration: 30_000,
          action: {
            label: 'Undo',
            // The dialog is gone by now: the toast calls the client itself.
            onClick: () => {
              void client.call('snapshots.undo', { projectId }).then(
                (undone) =>
                  toast.success(`Undid the rollback to ${undone.undid}: the files are back as they were`),
                (err: unknown) => toast.error(`Undo failed: ${errorMessage(err)}`),
              )
            },
          },
        })
      },
    })
  }

  const groups = preview.data ? previewGroups(preview.data) : null
  const nothing =
    groups !== null && groups.overwritten.length + groups.restored.length + groups.deleted.length === 0

  return (
    <RadixAlertDialog.Root open={tag !== null} onOpenChange={(open) => (open ? undefined : close())}>
      <RadixAlertDialog.Portal>
        <RadixAlertDialog.Overlay className="overlay" />
        <RadixAlertDialog.Content className="dialog rollback-dialog">
          <RadixAlertDialog.Title className="dialog-title">Roll back to {tag}</RadixAlertDialog.Title>
          <RadixAlertDialog.Description className="dialog-description">
            The folder goes back to how it was at <code>{tag}</code>. A safety snapshot is taken first:{' '}
            <strong>Undo brings everything back.</strong>
          </RadixAlertDialog.Description>

          {preview.isPending ? (
            <p className="muted rollback-progress" role="status">
              <Loader2 size={14} className="spin" aria-hidden /> Working out what will change…
            </p>
          ) : preview.error ? (
            <Banner tone="error">Could not preview this rollback: {errorMessage(preview.error)}</Banner>
          ) : groups && preview.data ? (
            <div className="rollback-preview" data-testid="rollback-preview">
              {preview.data.neverSnapshotted.length ? (
                <Banner tone="warn" className="rollback-never">
                  <AlertTriangle size={14} aria-hidden />
                  <div>
                    <strong>Some files cannot come back:</strong>
                    <ul aria-label="Cannot come back">
                      {preview.data.neverSnapshotted.map((n) => (
                        <li key={n.path}>{n.message}</li>
                      ))}
                    </ul>
                  </div>
                </Banner>
              ) : null}
              {nothing ? <p>Nothing to change: the folder already matches {tag}.</p> : null}
              <PathList label="Overwritten" paths={groups.overwritten} />
              <PathList label="Restored" paths={groups.restored} />
              <PathList label="Deleted" paths={groups.deleted} tone="bad" />
              <PathList label="Left alone" paths={groups.leftAlone} />
            </div>
          ) : null}

          {rollback.error ? (
            <Banner tone="error" className="rollback-error">
              {busy ? 'Cannot roll back now: ' : 'The rollback failed: '}
              {errorMessage(rollback.error)}
            </Banner>
          ) : null}
          {rollback.isPending ? (
            <p className="rollback-progress" role="status">
              <Loader2 size={14} className="spin" aria-hidden /> Rolling back…
            </p>
          ) : null}

          <div className="dialog-actions">
            {busy ? (
              <Button
                onClick={() => stop.mutate(undefined, { onSuccess: () => rollback.reset() })}
                disabledReason={stop.isPending ? 'Stopping the task…' : null}
              >
                Stop the task
              </Button>
            ) : null}
            <RadixAlertDialog.Cancel asChild>
              <Button>Cancel</Button>
            </RadixAlertDialog.Cancel>
            <Button
              variant="danger"
              onClick={confirm}
              aria-busy={rollback.isPending || undefined}
              disabledReason={
                rollback.isPending ? 'Rolling back…' : !preview.data ? 'Waiting for the preview.' : null
              }
            >
              Roll back
            </Button>
          </div>
        </RadixAlertDialog.Content>
      </RadixAlertDialog.Portal>
    </RadixAlertDialog.Root>
  )
}
