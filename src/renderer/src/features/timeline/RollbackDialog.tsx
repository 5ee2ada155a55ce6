import * as RadixAlertDialog from '@radix-ui/react-alert-dialog'
import { AlertTriangle, Loader2 } from 'lucide-react'
import { useState } from 'react'
import type { RollbackReportDto } from '../../../../shared/api/snapshots'
import { AppError } from '../../../../shared/errors'
import { useClient } from '../../app/ClientProvider'
import { errorMessage } from '../../app/queries'
import { ActionButton, Banner, Button, dialogFocus } from '../../ui'
import { useStopTask } from '../../app/projectQueries'
import { useRollback, useRollbackPreview } from './queries'
import { splitOwn } from '../../../../shared/ralphFiles'
import { showRollbackToast } from './undoToast'
import './timeline.css'

const SHOWN = 40

/** A short list of paths under a heading; long ones end with "… and N more". */
function PathList({
  label,
  paths,
  tone,
  name = label,
}: {
  label: string
  paths: string[]
  tone?: 'bad'
  /** The list's accessible name (the label by default). */
  name?: string
}) {
  if (paths.length === 0) return null
  const shown = paths.slice(0, SHOWN)
  return (
    <section className="rollback-section">
      <h3 className={tone === 'bad' ? 'rollback-heading tone-bad' : 'rollback-heading'}>
        {label} <span className="muted">({paths.length})</span>
      </h3>
      <ul className="rollback-paths" aria-label={name}>
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

export interface PreviewGroups {
  overwritten: string[]
  restored: string[]
  deleted: string[]
  leftAlone: string[]
}

/** What the preview says a rollback will do, in the words the dialog uses. */
export function previewGroups(report: RollbackReportDto): PreviewGroups {
  return {
    overwritten: report.written.filter((w) => w.change !== 'added').map((w) => w.path),
    restored: report.written.filter((w) => w.change === 'added').map((w) => w.path),
    deleted: report.deleted,
    leftAlone: [...report.leftAlone.map((l) => l.path), ...report.skipped.map((s) => s.path)],
  }
}

/** The groups of the user's files, and those of Ralph's own files (under .ralph/), apart. */
export function ownGroups(groups: PreviewGroups): { user: PreviewGroups; ralph: PreviewGroups } {
  const split = (paths: string[]) => splitOwn(paths, (p) => p)
  const parts = {
    overwritten: split(groups.overwritten),
    restored: split(groups.restored),
    deleted: split(groups.deleted),
    leftAlone: split(groups.leftAlone),
  }
  const side = (which: 'user' | 'ralph'): PreviewGroups => ({
    overwritten: parts.overwritten[which],
    restored: parts.restored[which],
    deleted: parts.deleted[which],
    leftAlone: parts.leftAlone[which],
  })
  return { user: side('user'), ralph: side('ralph') }
}

/** The files a rollback changes (overwritten, restored, deleted). */
export const changing = (g: PreviewGroups): number =>
  g.overwritten.length + g.restored.length + g.deleted.length

/** "2 of your files change: 1 overwritten, 1 deleted." — the headline counts the user's files only. */
export function previewHeadline(user: PreviewGroups): string {
  const n = changing(user)
  if (n === 0) return 'None of your files change.'
  const parts = (['overwritten', 'restored', 'deleted'] as const)
    .filter((k) => user[k].length > 0)
    .map((k) => `${user[k].length} ${k}`)
  return `${n === 1 ? '1 of your files changes' : `${n} of your files change`}: ${parts.join(', ')}.`
}

/** The preview's lists of one side: the user's, or (with `prefix`) Ralph's own. */
function GroupLists({ groups, prefix = '' }: { groups: PreviewGroups; prefix?: string }) {
  return (
    <>
      <PathList label="Overwritten" name={`${prefix}Overwritten`} paths={groups.overwritten} />
      <PathList label="Restored" name={`${prefix}Restored`} paths={groups.restored} />
      <PathList label="Deleted" name={`${prefix}Deleted`} paths={groups.deleted} tone="bad" />
      <PathList label="Left alone" name={`${prefix}Left alone`} paths={groups.leftAlone} />
    </>
  )
}

/** Ralph's own files (under .ralph/): collapsed after the user's, with their own count. */
function RalphOwnGroup({ groups }: { groups: PreviewGroups }) {
  const n = changing(groups) + groups.leftAlone.length
  if (n === 0) return null
  return (
    <details className="ralph-own" data-testid="ralph-own-files">
      <summary title="Ralph's notes, plan and task state in .ralph/: they go back with the files, and Undo brings them back too.">
        Ralph’s own files <span className="muted">({n})</span>
      </summary>
      <div className="ralph-own-lists">
        <GroupLists groups={groups} prefix="Ralph’s own files: " />
      </div>
    </details>
  )
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
  // Focus goes back to the opener after the rollback too, though the card's list has re-rendered it.
  const [focus] = useState(() => dialogFocus({ startOnFirstControl: false }))

  const close = () => {
    if (rollback.isPending) return
    rollback.reset()
    onClose()
  }

  // One click, one rollback: the button is busy until the call settles (a double click makes one safety snapshot).
  const confirm = async () => {
    if (tag === null) return
    const report = await rollback.mutateAsync(tag)
    rollback.reset()
    onClose()
    await showRollbackToast(client, projectId, report)
  }

  const groups = preview.data ? previewGroups(preview.data) : null
  const own = groups ? ownGroups(groups) : null
  const nothing = groups !== null && changing(groups) === 0

  return (
    <RadixAlertDialog.Root open={tag !== null} onOpenChange={(open) => (open ? undefined : close())}>
      <RadixAlertDialog.Portal>
        <RadixAlertDialog.Overlay className="overlay" />
        <RadixAlertDialog.Content className="dialog rollback-dialog" {...focus}>
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
              {nothing ? (
                <p>Nothing to change: the folder already matches {tag}.</p>
              ) : own ? (
                <p className="rollback-headline" data-testid="rollback-headline">
                  {previewHeadline(own.user)}
                </p>
              ) : null}
              {own ? (
                <>
                  <GroupLists groups={own.user} />
                  <RalphOwnGroup groups={own.ralph} />
                </>
              ) : null}
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
              <ActionButton
                onAction={() => stop.mutateAsync(undefined).then(() => rollback.reset())}
                disabledReason={stop.isPending ? 'Stopping the task…' : null}
              >
                Stop the task
              </ActionButton>
            ) : null}
            <RadixAlertDialog.Cancel asChild>
              <Button>Cancel</Button>
            </RadixAlertDialog.Cancel>
            <ActionButton
              variant="danger"
              onAction={confirm}
              disabledReason={
                rollback.isPending ? 'Rolling back…' : !preview.data ? 'Waiting for the preview.' : null
              }
            >
              Roll back
            </ActionButton>
          </div>
        </RadixAlertDialog.Content>
      </RadixAlertDialog.Portal>
    </RadixAlertDialog.Root>
  )
}
