import { useEffect, useState } from 'react'
import { snapshotTags, type DiffStatDto } from '../../../../shared/api/snapshots'
import { errorMessage, useCall } from '../../app/queries'
import { MiddlePath } from './MiddlePath'
import { openTaskFileDiff } from '../timeline'
import { isRalphOwnPath } from '../../../../shared/ralphFiles'
import { plural } from '../../../../shared/format'

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
 * The range of a task's changes: task-N-pre → task-N-post for a completed task; for one that ended without a post
 * snapshot (failed, stopped, capped), what it left: task-N-pre → task-(N+1)-pre once a later task started, else the
 * working copy (`against` omitted). Undefined while the later task's snapshot is being looked for.
 */
function useTaskRange(projectId: number, task: number, done: boolean, enabled: boolean) {
  const next = snapshotTags.taskPre(task + 1)
  const later = useCall(
    'snapshots.list',
    { projectId, search: next, limit: 50 },
    { enabled: enabled && !done, staleTime: 5_000 },
  )
  const base = { projectId, target: snapshotTags.taskPre(task) }
  if (done) return { ...base, against: snapshotTags.taskPost(task) }
  if (later.error) return base
  if (!later.data) return undefined
  return later.data.items.some((s) => s.tag === next) ? { ...base, against: next } : base
}

/** "2 added, 1 modified": the kinds that occur. */
function kindWords(entries: readonly { status: keyof typeof marks }[]): string {
  const counts = new Map<string, number>()
  for (const e of entries) counts.set(marks[e.status].word, (counts.get(marks[e.status].word) ?? 0) + 1)
  return [...counts].map(([word, n]) => `${n} ${word}`).join(', ')
}

/**
 * What a task changed, each file marked + ~ − with its lines added and deleted (the Timeline's calls, read only
 * when the card is on screen). A completed task: from its pre-task snapshot to its post-task one. A task that
 * ended otherwise (`left`): the files it left, which are still on disk, and how to undo them (issue 37).
 */
export function FilesChanged({
  projectId,
  task,
  left = false,
}: {
  projectId: number
  task: number
  /** The task failed, stopped or hit its cap: its files stay in the folder until rolled back. */
  left?: boolean
}) {
  const settled = useSettled()
  const range = useTaskRange(projectId, task, !left, settled)
  // A completed task's range never changes; the working copy does.
  const stale = left && range && !('against' in range) ? 0 : Infinity
  const diff = useCall('snapshots.diff', range ?? { projectId, target: snapshotTags.taskPre(task) }, {
    staleTime: stale,
    enabled: settled && range !== undefined,
  })
  // Ralph's own state (.ralph/: the task, its progress, its status) is in every task's snapshots: the card lists
  // the project's files, and only counts those.
  const all = (diff.data?.entries ?? []).filter((e) => !isRalphOwnPath(e.path))
  const ralphFiles = (diff.data?.entries.length ?? 0) - all.length
  const entries = all.slice(0, MAX_FILES)
  const stats = useCall(
    'snapshots.diffStats',
    {
      ...(range ?? { projectId, target: snapshotTags.taskPre(task) }),
      files: entries.map((e) => (e.oldPath ? { path: e.path, oldPath: e.oldPath } : { path: e.path })),
    },
    { enabled: entries.length > 0 && range !== undefined, staleTime: stale },
  )
  if (diff.error) {
    return (
      <p className="muted task-card-files-note">
        The files this task changed cannot be listed: {errorMessage(diff.error)}
      </p>
    )
  }
  if (!diff.data) return null
  if (!all.length)
    return (
      <p className="muted task-card-files-note">
        {left ? 'It left none of your files changed.' : 'No file of the project changed.'}
      </p>
    )
  const byPath = new Map<string, DiffStatDto>((stats.data?.files ?? []).map((s) => [s.path, s]))
  const ralphNote = ralphFiles
    ? `Ralph also updated ${plural(ralphFiles, 'file')} of its own notes in .ralph/ (not listed).`
    : undefined
  return (
    <section className={`task-card-files${left ? ' task-card-files-left' : ''}`}>
      <p className="task-card-files-head" title={ralphNote}>
        {left ? 'Left on disk: ' : ''}
        {plural(all.length, 'file')} {left ? '' : 'changed '}
        <span className="muted">({kindWords(all)})</span>
      </p>
      {left ? (
        <p className="task-card-files-note muted" role="note">
          These changes are still in your folder. To undo them, use Roll back to before this task.
        </p>
      ) : null}
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
