import * as RadixAlertDialog from '@radix-ui/react-alert-dialog'
import { HardDrive, Loader2, Trash2 } from 'lucide-react'
import { useState } from 'react'
import type { PruneResult } from '../../../../shared/api/snapshots'
import { errorMessage, useCall } from '../../app/queries'
import { ActionButton, Banner, Button, toast } from '../../ui'
import { formatSize } from './compareRange'
import { usePrune, useStoreUsage } from './queries'
import { plural } from './rows'
import { CLEAN_UP_DEFAULTS, cleanUpSummary } from './storage'

/** The timeline's footer: what the snapshot store takes on disk, and "Clean up". */
export function StorageFooter({ projectId }: { projectId: number }) {
  const usage = useStoreUsage(projectId)
  const [open, setOpen] = useState(false)
  const text = usage.isPending
    ? 'Measuring the snapshot store…'
    : usage.error
      ? `Could not measure the snapshot store: ${errorMessage(usage.error)}`
      : `${plural(usage.data.snapshotCount, 'snapshot')} · ${formatSize(usage.data.storeBytes)} on disk`
  return (
    <div className="timeline-storage" data-testid="snapshot-storage">
      <HardDrive size={13} aria-hidden className="muted" />
      <span className="timeline-storage-text muted">{text}</span>
      <Button
        size="sm"
        variant="ghost"
        icon={<Trash2 size={13} aria-hidden />}
        disabledReason={usage.data && usage.data.snapshotCount === 0 ? 'No snapshots to clean up yet.' : null}
        onClick={() => setOpen(true)}
      >
        Clean up
      </Button>
      {open ? <CleanUpDialog projectId={projectId} onClose={() => setOpen(false)} /> : null}
    </div>
  )
}

const numberOr = (text: string, fallback: number): number => {
  const n = Number(text)
  return text.trim() !== '' && Number.isFinite(n) && n >= 0 ? Math.floor(n) : fallback
}

/**
 * "Clean up snapshots": the prune of the snapshot engine with its two options, a preview of the snapshots it
 * removes (a dry run), then progress and what it freed. Task snapshots and the baseline are never removed, nor
 * the snapshot Undo needs.
 */
function CleanUpDialog({ projectId, onClose }: { projectId: number; onClose(): void }) {
  const [days, setDays] = useState(String(CLEAN_UP_DEFAULTS.olderThanDays))
  const [keep, setKeep] = useState(String(CLEAN_UP_DEFAULTS.keepLast))
  const options = {
    olderThanDays: numberOr(days, CLEAN_UP_DEFAULTS.olderThanDays),
    keepLast: numberOr(keep, CLEAN_UP_DEFAULTS.keepLast),
  }
  // What the clean-up would remove with these options (a dry run, asked again as they change).
  const preview = useCall('snapshots.prune', { projectId, ...options, dryRun: true }, { staleTime: 0 })
  const prune = usePrune(projectId)
  const [result, setResult] = useState<PruneResult | null>(null)
  const removes = preview.data?.removedTags ?? null

  const close = () => {
    if (!prune.isPending) onClose()
  }
  const run = () =>
    prune.mutateAsync(options).then((r) => {
      setResult(r)
      toast.success(cleanUpSummary(r))
    })

  return (
    <RadixAlertDialog.Root open onOpenChange={(o) => (o ? undefined : close())}>
      <RadixAlertDialog.Portal>
        <RadixAlertDialog.Overlay className="overlay" />
        <RadixAlertDialog.Content className="dialog cleanup-dialog">
          <RadixAlertDialog.Title className="dialog-title">Clean up snapshots</RadixAlertDialog.Title>
          <RadixAlertDialog.Description className="dialog-description">
            Removes old snapshots you saved by hand and the safety snapshots taken before rollbacks, then
            packs the store. Task snapshots, the baseline and the snapshot Undo needs are always kept.
          </RadixAlertDialog.Description>
          {result ? (
            <p className="cleanup-result" role="status" data-testid="cleanup-result">
              {cleanUpSummary(result)}
            </p>
          ) : (
            <>
              <div className="cleanup-options">
                {(
                  [
                    ['Older than (days)', days, setDays],
                    ['Keep the newest', keep, setKeep],
                  ] as const
                ).map(([label, value, set]) => (
                  <label key={label}>
                    {label}
                    <input
                      type="number"
                      min={0}
                      value={value}
                      disabled={prune.isPending}
                      onChange={(e) => set(e.target.value)}
                    />
                  </label>
                ))}
              </div>
              <p className="muted cleanup-preview" data-testid="cleanup-preview">
                {removes === null
                  ? 'Checking what would go…'
                  : removes.length === 0
                    ? 'No snapshot is that old: cleaning up only packs the store.'
                    : `Removes ${plural(removes.length, 'snapshot')}: ${removes.slice(0, 6).join(', ')}${removes.length > 6 ? ` and ${removes.length - 6} more` : ''}.`}
              </p>
              {preview.error ? (
                <Banner tone="error">Could not check what would go: {errorMessage(preview.error)}</Banner>
              ) : null}
            </>
          )}
          {prune.error ? (
            <Banner tone="error">The clean-up failed: {errorMessage(prune.error)}</Banner>
          ) : null}
          {prune.isPending ? (
            <p className="rollback-progress" role="status">
              <Loader2 size={14} className="spin" aria-hidden /> Cleaning up: removing snapshots and packing
              the store…
            </p>
          ) : null}
          <div className="dialog-actions">
            {result ? (
              <Button variant="primary" onClick={onClose}>
                Done
              </Button>
            ) : (
              <>
                <Button
                  onClick={close}
                  disabledReason={
                    prune.isPending ? 'A clean-up cannot stop halfway; it takes a few seconds.' : null
                  }
                >
                  Cancel
                </Button>
                <ActionButton
                  variant="danger"
                  onAction={run}
                  disabledReason={
                    prune.isPending ? 'Cleaning up…' : removes === null ? 'Checking what would go…' : null
                  }
                >
                  Clean up
                </ActionButton>
              </>
            )}
          </div>
        </RadixAlertDialog.Content>
      </RadixAlertDialog.Portal>
    </RadixAlertDialog.Root>
  )
}
