import { Loader2, X } from 'lucide-react'
import { errorMessage } from '../../app/queries'
import { useEffect } from 'react'
import { useClient } from '../../app/ClientProvider'
import { Button, toast } from '../../ui'
import { useBaselineProgress, useCancelBaseline } from './queries'
import './timeline.css'

const count = (n: number): string => n.toLocaleString('en-US')

/**
 * The status bar's item while a project's baseline snapshot runs in the background (DESIGN.md §5, §15): files
 * read so far of the estimated total, and a Cancel. Nothing when no baseline runs.
 */
export function BaselineStatus({ projectId }: { projectId: number }) {
  const progress = useBaselineProgress(projectId)
  const cancel = useCancelBaseline()
  const client = useClient()
  // Only a baseline that did not save is worth a word: a saved one simply appears in the timeline.
  useEffect(
    () =>
      client.on('snapshot.baselineFinished', (e) => {
        if (e.projectId !== projectId) return
        if (e.outcome === 'failed') toast.error(e.message)
        else if (e.outcome === 'cancelled')
          toast('Baseline snapshot cancelled', {
            description: 'The first task’s snapshot will read every file instead.',
          })
      }),
    [client, projectId],
  )
  if (!progress) return null
  const text =
    progress.phase === 'listing' || progress.total === null
      ? 'Baseline snapshot: listing files…'
      : progress.phase === 'saving'
        ? `Baseline snapshot: saving ${count(progress.total)} files…`
        : `Baseline snapshot: ${count(progress.done)} of ${count(progress.total)} files`
  const percent =
    progress.total && progress.total > 0
      ? Math.min(100, Math.round((progress.done / progress.total) * 100))
      : null
  return (
    <span className="status-item status-baseline" data-testid="status-baseline">
      <Loader2 size={13} className="spin" aria-hidden />
      <span role="status">{text}</span>
      <progress
        className="status-progress"
        aria-label="Baseline snapshot progress"
        max={100}
        value={percent ?? undefined}
      />
      <Button
        size="sm"
        variant="ghost"
        icon={<X size={13} aria-hidden />}
        title="Stop the baseline snapshot; the first task then saves every file itself"
        disabledReason={cancel.isPending ? 'Cancelling…' : null}
        onClick={() =>
          cancel.mutate(projectId, {
            onError: (err) => toast.error(`Could not cancel the baseline: ${errorMessage(err)}`),
          })
        }
      >
        Cancel
      </Button>
    </span>
  )
}
