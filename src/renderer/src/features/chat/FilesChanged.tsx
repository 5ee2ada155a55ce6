import { useEffect, useState } from 'react'
import { snapshotTags, type DiffStatDto } from '../../../../shared/api/snapshots'
import { errorMessage, useCall } from '../../app/queries'
import { MiddlePath } from './MiddlePath'
import { openTaskFileDiff } from '../timeline'
import { isRalphOwnPath } from '../../../../shared/ralphFiles'

/** Files listed with their line counts; a task that changed more says how many more there were. */
export const MAX_FILES = 100
const SETTLE_MS = 250

const marks = {
  added: { sign: '+', word: 'added' },
  modified: { sign: '~', word: 'modified' },
  typechange: { sign: '~', word: 'modified' },
  renamed: { sign: '~', word: 'renamed' },
  deleted: { sign: '−', word: 'deleted' },
} as const

/**
 * What a finished task changed, from its pre-task snapshot to its post-task one: each file marked + ~ − with
 * its lines added and deleted (the Timeline's calls, read only when the card is on screen).
 */
export function FilesChanged({ projectId, task }: { projectId: number; task: number }) {
  const range = { projectId, target: snapshotTags.taskPre(task), against: snapshotTags.taskPost(task) }
  const settled = useSettled()
  const diff = useCall('snapshots.diff', range, { staleTime: Infinity, enabled: settled })
  // Ralph's own state (.ralph/: the task, its progress, its status) is in every task's snapshots: the card lists
  // the project's files, and only counts those.
  const all = (diff.data?.entries ?? []).filter((e) => !isRalphOwnPath(e.path))
  const ralphFiles = (diff.data?.entries.length ?? 0) - all.length
  const entries = all.slice(0, MAX_FILES)
  const stats = useCall(
    'snapshots.diffStats',
    {
      ...range,
      files: entries.map((e) => (e.oldPath ? { path: e.path, oldPath: e.oldPath } : { path: e.path })),
    },
    { enabled: entries.length > 0, staleTime: Infinity },
  )
  if (diff.error) {
    return (
      <p className="muted task-card-files-note">
        The files this task changed cannot be listed: {errorMessage(diff.error)}
      </p>
    )
  }
  if (!diff.data) return null
  if (!all.length) return <p className="muted task-card-files-note">No file of the project changed.</p>
  const byPath = new Map<string, DiffStatDto>((stats.data?.files ?? []).map((s) => [s.path, s]))
  const count = (sign: string) => all.filter((e) => marks[e.status].sign === sign).length
  return (
    <section className="task-card-files">
      <p className="task-card-files-head">
        Files changed: {all.length}
        <span className="muted">
          {' '}
          (
          {[
            ['+', count('+')],
            ['~', count('~')],
            ['−', count('−')],
          ]
            .filter(([, n]) => n)
            .map(([sign, n]) => `${sign}${n}`)
            .join(' ')}
          ){ralphFiles ? `, and ${ralphFiles} of Ralph's own in .ralph/` : ''}
        </span>
      </p>
      <ul aria-label="Files changed" className="task-card-file-list">
        {entries.map((e) => {
          const mark = marks[e.status]
          const stat = byPath.get(e.path)
          return (
            <li key={e.path} className={`file-${mark.word}`}>
              <span className="file-sign" aria-label={mark.word}>
                {mark.sign}
              </span>
              <button
                type="button"
                className="row-button file-open"
                aria-label={`Open the diff of ${e.path}`}
                title={`${e.oldPath ? `${e.oldPath} → ${e.path}` : e.path}: open its diff`}
                onClick={() => openTaskFileDiff(projectId, task, e.path)}
              >
                {e.oldPath ? <MiddlePath className="file-path" path={e.oldPath} /> : null}
                {e.oldPath ? <span aria-hidden> → </span> : null}
                <MiddlePath className="file-path" path={e.path} />
              </button>
              <LineCounts stat={stat} />
            </li>
          )
        })}
        {all.length > entries.length ? (
          <li className="muted">… and {all.length - entries.length} more (Compare shows them all)</li>
        ) : null}
      </ul>
    </section>
  )
}

/**
 * True once the card has stayed on screen for a moment: cards flying past in a fast scroll (the list mounts and
 * unmounts them) ask the core nothing.
 */
function useSettled(): boolean {
  const [settled, setSettled] = useState(false)
  useEffect(() => {
    const timer = setTimeout(() => setSettled(true), SETTLE_MS)
    return () => clearTimeout(timer)
  }, [])
  return settled
}

function LineCounts({ stat }: { stat: DiffStatDto | undefined }) {
  if (!stat) return null
  if (stat.binary) return <span className="file-lines muted">binary</span>
  if (stat.additions === null || stat.deletions === null)
    return <span className="file-lines muted">too large to count</span>
  return (
    <span className="file-lines">
      <span className="lines-added">+{stat.additions}</span>{' '}
      <span className="lines-deleted">−{stat.deletions}</span>
    </span>
  )
}
