import { Loader2, X } from 'lucide-react'
import { errorMessage } from '../../app/queries'
import { useEffect, useState } from 'react'
import { useClient } from '../../app/ClientProvider'
import { ActionButton, toast } from '../../ui'
import { useBaselineProgress, useCancelBaseline } from './queries'
import './timeline.css'

const count = (n: number): string => n.toLocaleString('en-US')

/**
 * Every project opened without snapshots gets a baseline; a small one's is done in a fraction of a second. The
 * status bar shows only one still running after this long, so opening a small project does not flash it.
 */
export const BASELINE_SHOW_AFTER_MS = 800

/** True once `running` has stayed true for `ms`; false again as soon as it stops. */
function useRunningFor(running: boolean, ms: number): boolean {
  const [late, setLate] = useState(false)
  useEffect(() => {
    if (!running) return
    const timer = setTimeout(() => setLate(true), ms)
    return () => {
      clearTimeout(timer)
      setLate(false)
    }
  }, [running, ms])
  return running && late
}

/** The project's baseline progress once it has run for a noticeable moment (null before, and when none runs). */
export function useSlowBaseline(projectId: number) {
  const progress = useBaselineProgress(projectId)
  return useRunningFor(progress !== null, BASELINE_SHOW_AFTER_MS) ? progress : null
}

/**
 * The status bar's item while a project's baseline snapshot runs in the background (DESIGN.md §5, §15): files
 * read so far of the estimated total, and a Cancel. Nothing when no baseline runs, nor in its first moment.
 */
export function BaselineStatus({ projectId }: { projectId: number }) {
  const progress = useSlowBaseline(projectId)
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
      <ActionButton
        size="sm"
        variant="ghost"
        icon={<X size={13} aria-hidden />}
        title="Stop the baseline snapshot; the first task then saves every file itself"
        onAction={() =>
          cancel
            .mutateAsync(projectId)
            .catch((err: unknown) => toast.error(`Could not cancel the baseline: ${errorMessage(err)}`))
        }
      >
        Cancel
      </ActionButton>
    </span>
  )
}
