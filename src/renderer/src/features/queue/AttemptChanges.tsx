import { GitCompare } from 'lucide-react'
import { useEffect } from 'react'
import { snapshotTags } from '../../../../shared/snapshotTags'
import { isRalphOwnPath } from '../../../../shared/ralphFiles'
import { plural } from '../../../../shared/format'
import { errorMessage, useCall } from '../../app/queries'
import { Button } from '../../ui'
import { CompareFull, useTimelineUi } from '../timeline'
import { openAttemptCompare, useQueueUi } from './queueUi'

/** Files listed per attempt; Compare shows them all. */
const MAX_FILES = 30

const signs = { added: '+', modified: '~', typechange: '~', renamed: '→', deleted: '−' } as const

/**
 * What one build attempt changed (issue 37): its files, each opening the Timeline's Compare full size on that
 * file, and "Show the diff". `task` is the attempt's lifecycle task number (task-N-pre → task-N-post).
 */
export function AttemptChanges({ projectId, task }: { projectId: number; task: number }) {
  const diff = useCall(
    'snapshots.diff',
    { projectId, target: snapshotTags.taskPre(task), against: snapshotTags.taskPost(task) },
    { staleTime: Infinity },
  )
  if (diff.error)
    return (
      <p className="muted queue-note">
        What this attempt changed cannot be listed: {errorMessage(diff.error)}
      </p>
    )
  if (!diff.data) return null
  const files = diff.data.entries.filter((e) => !isRalphOwnPath(e.path))
  if (files.length === 0) return <p className="muted queue-note">This attempt changed none of your files.</p>
  return (
    <div className="queue-attempt-changes">
      <p className="queue-attempt-head">
        <span>What it changed: {plural(files.length, 'file')}</span>
        <Button
          size="sm"
          variant="ghost"
          icon={<GitCompare size={13} aria-hidden />}
          title="Open the diff full size (Esc returns here)"
          onClick={() => openAttemptCompare(projectId, task, files[0]!.path)}
        >
          Show the diff
        </Button>
      </p>
      <ul className="queue-attempt-files" aria-label="Files this attempt changed">
        {files.slice(0, MAX_FILES).map((f) => (
          <li key={f.path}>
            <button
              type="button"
              className="row-button queue-attempt-file"
              aria-label={`Open the diff of ${f.path}`}
              title={`${f.oldPath ? `${f.oldPath} → ` : ''}${f.path}: ${f.status}; open its diff`}
              onClick={() => openAttemptCompare(projectId, task, f.path)}
            >
              <span className={`queue-attempt-sign file-${f.status}`} aria-label={f.status}>
                {signs[f.status]}
              </span>
              <span className="mono">{f.path}</span>
            </button>
          </li>
        ))}
        {files.length > MAX_FILES ? (
          <li className="muted">… and {files.length - MAX_FILES} more (Show the diff lists them all)</li>
        ) : null}
      </ul>
    </div>
  )
}

/**
 * The Compare an attempt opened, full size over the Queue (the Timeline tab is not mounted meanwhile). Closing it
 * closes that Compare too, so the Timeline later opens on its list, not on the Queue's range.
 */
export function QueueCompare({ projectId }: { projectId: number }) {
  const mine = useQueueUi((s) => s.comparing === projectId)
  const range = useTimelineUi((s) => (s.compareProject === projectId ? s.compare : null))
  const open = useTimelineUi((s) => s.fullSize)
  useEffect(() => {
    if (mine && !open) {
      useTimelineUi.getState().closeCompare()
      useQueueUi.setState({ comparing: null })
    }
  }, [mine, open])
  return mine && range ? <CompareFull projectId={projectId} range={range} /> : null
}
