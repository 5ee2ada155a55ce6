import {
  Bookmark,
  CircleCheck,
  CircleDot,
  Flag,
  GitCompare,
  LifeBuoy,
  RotateCcw,
  ShieldCheck,
  type LucideIcon,
} from 'lucide-react'
import { forwardRef, useMemo, useState, type HTMLAttributes, type ReactNode } from 'react'
import { Virtuoso } from 'react-virtuoso'
import type { SnapshotMetaDto } from '../../../../shared/api/snapshots'
import { useClient } from '../../app/ClientProvider'
import { fallbackTo } from '../../app/failures'
import { errorMessage } from '../../app/queries'
import { Badge, Banner, Button, cx, Segmented } from '../../ui'
import { timeAgo } from '../projects'
import { Compare } from './Compare'
import { CompareFull } from './CompareFull'
import { WORKING, rangeFor } from './compareRange'
import { RollbackDialog } from './RollbackDialog'
import { RollbackNotice } from './RollbackNotice'
import { SearchBox } from './SearchBox'
import { StorageFooter } from './StorageFooter'
import { useSnapshotPages, useSnapshotStatus } from './queries'
import { UndoRollbackButton } from './UndoRollbackButton'
import { SaveSnapshotButton } from './SaveSnapshot'
import { useSlowBaseline } from './BaselineStatus'
import {
  changeWords,
  kindWords,
  plural,
  RALPH_MARK,
  ralphWords,
  splitCounts,
  timelineRows,
  type TimelineFilter,
} from './rows'
import { formatWhen } from '../../../../shared/format'
import './ownCounts.css'
import './timelineFilter.css'
import { useTimelineUi } from './timelineUi'
import { useDebounced } from '../../ui/useDebounced'
import './timeline.css'

const kinds: Record<SnapshotMetaDto['kind'], { label: string; icon: LucideIcon }> = {
  baseline: { label: 'baseline', icon: Flag },
  'task-pre': { label: 'before the task', icon: CircleDot },
  'task-post': { label: 'after the task', icon: CircleCheck },
  'stall-recovery': { label: 'stall recovery', icon: LifeBuoy },
  safety: { label: 'safety, before a rollback', icon: ShieldCheck },
  manual: { label: 'saved by hand', icon: Bookmark },
}
const kindInfo = (s: SnapshotMetaDto): { label: string; icon: LucideIcon } => kinds[s.kind]

/** Virtuoso's list and item elements, as a `list` "Snapshots" of `listitem`s. */
const List = forwardRef<HTMLDivElement, HTMLAttributes<HTMLDivElement>>(function List(props, ref) {
  return <div {...props} ref={ref} role="list" aria-label="Snapshots" />
})
const Item = (props: HTMLAttributes<HTMLDivElement>) => <div {...props} role="none" />

/** Compare's "before" side when the list cannot be read: the failure is noted, and the entry is compared with the working copy. */
const noPrevious = () =>
  fallbackTo('the snapshot before this entry could not be read; comparing it with the working copy.', null)

/** What the timeline lists: the tasks' snapshots only, or every snapshot. */
const filters: readonly (readonly [TimelineFilter, string])[] = [
  ['tasks', 'Tasks only'],
  ['everything', 'Everything'],
]

/**
 * The Timeline tab (DESIGN.md §5, §15): the working copy against the latest snapshot, then every snapshot newest
 * first, grouped by task, each with Roll back (through the preview dialog) and Compare.
 */
export function Timeline({ projectId }: { projectId: number }) {
  const filter = useTimelineUi((s) => s.filter)
  const setFilter = useTimelineUi((s) => s.setFilter)
  // The search belongs to this project's timeline: another project's opens unfiltered.
  const [typed, setTyped] = useState({ projectId, text: '' })
  const searchText = typed.projectId === projectId ? typed.text : ''
  const setSearchText = (text: string) => setTyped({ projectId, text })
  const search = useDebounced(searchText.trim(), 200)
  const pages = useSnapshotPages(projectId, { tasksOnly: filter === 'tasks', search })
  const baseline = useSlowBaseline(projectId) !== null
  const compare = useTimelineUi((s) => (s.compareProject === projectId ? s.compare : null))
  const openCompare = useTimelineUi((s) => s.openCompare)
  const client = useClient()
  const [rollbackTag, setRollbackTag] = useState<string | null>(null)
  const snapshots = useMemo(() => pages.data?.pages.flatMap((p) => p.items) ?? [], [pages.data])
  const total = pages.data?.pages[0]?.total ?? 0
  // The snapshot the folder was last saved as or rolled back to.
  const current = useSnapshotStatus(projectId).data?.position?.tag ?? null
  // New rows when the position moves: Virtuoso re-renders an item when its data changes, not for a closure.
  const rows = useMemo(
    () => timelineRows(snapshots, filter).map((row) => ({ ...row, current: row.snapshot.tag === current })),
    [snapshots, filter, current],
  )

  // Compare an entry with the snapshot before it (the next one down, read from the store when not loaded yet).
  // Only the unfiltered list says which snapshot came just before: a filtered one asks the store.
  const compareFrom = async (snapshot: SnapshotMetaDto) => {
    const unfiltered = filter === 'everything' && search === ''
    const at = snapshots.findIndex((s) => s.tag === snapshot.tag)
    let previous = unfiltered && at >= 0 ? snapshots[at + 1] : undefined
    if (!unfiltered) previous = await snapshotBefore(snapshot)
    else if (!previous && at >= 0 && at + 1 < total) {
      const page = await client
        .call('snapshots.list', { projectId, offset: at + 1, limit: 1 })
        .catch(noPrevious())
      previous = page?.items[0]
    }
    openCompare(projectId, rangeFor(snapshot, previous))
  }
  const snapshotBefore = async (snapshot: SnapshotMetaDto): Promise<SnapshotMetaDto | undefined> => {
    // The unfiltered list is short enough to read in pages of 1,000 until the entry is found.
    for (let offset = 0; ; offset += 1000) {
      const page = await client.call('snapshots.list', { projectId, offset, limit: 1000 }).catch(noPrevious())
      if (!page) return undefined
      const at = page.items.findIndex((s) => s.tag === snapshot.tag)
      if (at >= 0) {
        if (at + 1 < page.items.length) return page.items[at + 1]
        const next = await client
          .call('snapshots.list', { projectId, offset: offset + at + 1, limit: 1 })
          .catch(noPrevious())
        return next?.items[0]
      }
      if (offset + page.items.length >= page.total) return undefined
    }
  }

  if (compare) {
    return (
      <div className="timeline">
        <Compare projectId={projectId} range={compare} />
        <CompareFull projectId={projectId} range={compare} />
      </div>
    )
  }

  return (
    <div className="timeline">
      <div className="timeline-toolbar">
        <Segmented
          label="Show"
          className="timeline-filter"
          options={filters}
          value={filter}
          onChange={setFilter}
        />
        <SaveSnapshotButton projectId={projectId} />
      </div>
      <RollbackNotice projectId={projectId} />
      <SearchBox
        label="Search snapshots"
        placeholder="Search messages and tags"
        value={searchText}
        onChange={setSearchText}
      >
        {search && pages.data ? (
          <span className="timeline-search-count muted" role="status">
            {total === 1 ? '1 match' : `${total} matches`}
          </span>
        ) : null}
      </SearchBox>
      <WorkingCopy
        projectId={projectId}
        onCompare={(tag) => openCompare(projectId, { from: tag, to: WORKING })}
      />
      {pages.isPending ? (
        <p className="timeline-note muted" role="status">
          Loading snapshots…
        </p>
      ) : pages.error ? (
        <Banner tone="error">Could not read the snapshots: {errorMessage(pages.error)}</Banner>
      ) : search && total === 0 ? (
        <p className="timeline-note muted">
          No snapshot{filter === 'tasks' ? ' of a task' : ''} mentions “{search}”.
        </p>
      ) : total === 0 && filter === 'tasks' ? (
        <p className="timeline-note muted">No task snapshots yet: choose “Everything” to see the others.</p>
      ) : total === 0 && baseline ? (
        <p className="timeline-note muted" role="status">
          Taking the baseline snapshot: every file is read once now, so the first task’s snapshot only stores
          what changed. Its progress is in the status bar.
        </p>
      ) : total === 0 ? (
        <p className="timeline-note muted">
          No snapshots yet. Ralph saves one before and after every task; “Save snapshot” saves one now.
        </p>
      ) : (
        <Virtuoso
          className="timeline-scroller"
          data={rows}
          computeItemKey={(_, row) => row.snapshot.tag}
          components={{ List, Item }}
          endReached={() =>
            pages.hasNextPage && !pages.isFetchingNextPage ? pages.fetchNextPage() : undefined
          }
          itemContent={(_, row) => (
            <>
              {row.group ? (
                <div className="caps-label timeline-group" role="presentation">
                  {row.group}
                </div>
              ) : null}
              <SnapshotItem
                snapshot={row.snapshot}
                grouped={row.snapshot.task !== null}
                current={row.current}
                onRollback={() => setRollbackTag(row.snapshot.tag)}
                onCompare={() => void compareFrom(row.snapshot)}
              />
            </>
          )}
        />
      )}
      <StorageFooter projectId={projectId} />
      <RollbackDialog projectId={projectId} tag={rollbackTag} onClose={() => setRollbackTag(null)} />
    </div>
  )
}

function SnapshotItem({
  snapshot: s,
  grouped,
  current,
  onRollback,
  onCompare,
}: {
  snapshot: SnapshotMetaDto
  grouped: boolean
  current: boolean
  onRollback(): void
  onCompare(): void
}) {
  const { label, icon: Icon } = kindInfo(s)
  const when = timeAgo(s.createdAt)
  const counts = splitCounts(s)
  const name = [
    s.tag,
    current ? 'current' : '',
    label,
    when,
    s.message,
    changeWords(counts.user),
    counts.ralphTotal ? `and ${plural(counts.ralphTotal, 'file')} of Ralph’s own` : '',
    s.skippedTotal ? `${s.skippedTotal} skipped` : '',
  ]
    .filter(Boolean)
    .join(', ')
  return (
    <div role="listitem" aria-label={name} className={cx('snapshot', grouped && 'snapshot-grouped')}>
      <Icon size={14} className={`snapshot-icon kind-${s.kind}`} aria-hidden />
      <div className="snapshot-body">
        <div className="snapshot-line">
          <span className="snapshot-title">
            <code className="snapshot-tag">{s.tag}</code>
            {current ? <Badge tone="accent">current</Badge> : null}
          </span>
          <time
            className="snapshot-time muted"
            dateTime={new Date(s.createdAt).toISOString()}
            title={formatWhen(s.createdAt)}
          >
            {when}
          </time>
        </div>
        {s.message ? <p className="snapshot-message">{s.message}</p> : null}
        <p className="snapshot-counts">
          <span>{changeWords(counts.user)}</span>
          <RalphCount ralph={counts.ralph} total={counts.ralphTotal} />
          {s.skippedTotal ? (
            <span
              className="snapshot-skipped"
              title={s.skipped.map((k) => `${k.path} (${k.reason})`).join('\n')}
            >
              {plural(s.skippedTotal, 'file')} skipped
            </span>
          ) : null}
        </p>
      </div>
      <div className="snapshot-actions">
        <Button size="sm" variant="ghost" icon={<RotateCcw size={13} aria-hidden />} onClick={onRollback}>
          Roll back
        </Button>
        <Button
          size="sm"
          variant="ghost"
          icon={<GitCompare size={13} aria-hidden />}
          title={
            s.kind === 'task-post' && s.task !== null
              ? `What task ${s.task} changed`
              : 'What changed since the snapshot before'
          }
          onClick={onCompare}
        >
          Compare
        </Button>
      </div>
    </div>
  )
}

/** Ralph's own files (.ralph/) a change touched, quieter than the user's counts; how many and which on hover. */
function RalphCount({
  ralph,
  total,
}: {
  ralph: { added: number; modified: number; deleted: number }
  total: number
}) {
  if (total === 0) return null
  return (
    <span className="own-count muted" title={ralphWords(ralph)} data-testid="ralph-count">
      {' '}
      · {RALPH_MARK}
    </span>
  )
}

/** The row above the list: how the folder differs from the latest snapshot, edits made elsewhere included. */
function WorkingCopy({ projectId, onCompare }: { projectId: number; onCompare(tag: string): void }) {
  const status = useSnapshotStatus(projectId)
  let text: ReactNode
  const since = status.data ? (status.data.position ?? status.data.latest) : null
  const changed = status.data
    ? status.data.changes.added + status.data.changes.modified + status.data.changes.deleted
    : 0
  const split = status.data ? splitCounts(status.data.changes) : null
  if (status.isPending) text = 'Checking the folder…'
  else if (status.error) text = `Could not check the folder: ${errorMessage(status.error)}`
  else {
    const { user, ralph, ralphTotal } = split!
    const n = changed - ralphTotal
    const tag = since ? <code className="working-copy-tag">{since.tag}</code> : null
    const own = <RalphCount ralph={ralph} total={ralphTotal} />
    text =
      since === null ? (
        'No snapshot yet'
      ) : changed === 0 ? (
        <>No changes since {tag}</>
      ) : n === 0 ? (
        <>
          None of your files changed since {tag}
          {own}
        </>
      ) : (
        <>
          {plural(n, 'file')} changed since {tag} ({kindWords(user)}){own}
        </>
      )
  }
  return (
    <div className="working-copy" data-testid="working-copy" role="status" aria-label="Working copy">
      <span className="caps-label working-copy-label">Working copy</span>
      <span className={cx('working-copy-text', status.data?.dirty && 'working-copy-dirty')}>{text}</span>
      {since && changed > 0 ? (
        <Button
          size="sm"
          variant="ghost"
          className="working-copy-action"
          icon={<GitCompare size={13} aria-hidden />}
          onClick={() => onCompare(since.tag)}
        >
          Show changes
        </Button>
      ) : null}
      {/* The last rollback stays undoable here until something else changes the project (issue 37). */}
      <UndoRollbackButton projectId={projectId} />
    </div>
  )
}
