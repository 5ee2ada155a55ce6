import { Loader2 } from 'lucide-react'
import { useMemo, useState } from 'react'
import type { SnapshotMetaDto } from '../../../../shared/api/snapshots'
import { errorMessage } from '../../app/queries'
import { Button } from '../../ui'
import { WORKING, sideLabel, type CompareRange } from './compareRange'
import { SNAPSHOT_PAGE, useSnapshotPages } from './queries'
import { useDebounced } from '../../ui/useDebounced'
import { SearchBox } from './SearchBox'
import './compare.css'

/** A message in an option is cut here: the tag must stay readable in a narrow panel. */
const MESSAGE_CHARS = 48

/** "task-2-post · Added the hours page": what an option says (its value is the tag). */
export function optionText(s: Pick<SnapshotMetaDto, 'tag' | 'message'>): string {
  const message = s.message.replace(/\s+/g, ' ').trim()
  if (!message) return s.tag
  return `${s.tag} · ${message.length > MESSAGE_CHARS ? `${message.slice(0, MESSAGE_CHARS - 1)}…` : message}`
}

/**
 * Compare's From and To: two `combobox`es over the project's snapshots, newest first, a page at a time, plus the
 * working copy. "Find a snapshot" narrows both lists through the core's snapshot search (message or tag), so any
 * snapshot of a long history can be chosen, not just the newest page; "Show older" reads the next page.
 */
export function RangePickers({
  projectId,
  range,
  onChoose,
}: {
  projectId: number
  range: CompareRange
  onChoose(side: 'from' | 'to', value: string): void
}) {
  const [typed, setTyped] = useState('')
  const search = useDebounced(typed.trim(), 200)
  const pages = useSnapshotPages(projectId, { tasksOnly: false, search })
  const items = useMemo(() => pages.data?.pages.flatMap((p) => p.items) ?? [], [pages.data])
  const total = pages.data?.pages.at(-1)?.total ?? 0
  const listed = useMemo(() => new Set(items.map((s) => s.tag)), [items])

  return (
    <>
      <div className="compare-range">
        {(['from', 'to'] as const).map((side) => (
          <label key={side} className="compare-pick">
            <span className="compare-pick-label">{side === 'from' ? 'From' : 'To'}</span>
            <select
              aria-label={side === 'from' ? 'From' : 'To'}
              title={sideLabel(range[side])}
              value={range[side]}
              onChange={(e) => onChoose(side, e.target.value)}
            >
              <option value={WORKING}>Working copy</option>
              {/* The side's snapshot stays choosable when the find or the paging leaves it out of the list. */}
              {range[side] !== WORKING && !listed.has(range[side]) ? (
                <option value={range[side]}>{range[side]}</option>
              ) : null}
              {items.map((s) => (
                <option key={s.tag} value={s.tag}>
                  {optionText(s)}
                </option>
              ))}
            </select>
          </label>
        ))}
      </div>
      <div className="compare-find">
        <SearchBox
          className="compare-find-box"
          label="Find a snapshot"
          placeholder="Find a snapshot by message or tag"
          value={typed}
          onChange={setTyped}
        />
        <div className="compare-find-foot">
          <span className="compare-find-count muted" role="status" data-testid="compare-find-count">
            {pages.error
              ? `Could not list the snapshots: ${errorMessage(pages.error)}`
              : !pages.data
                ? 'Listing snapshots…'
                : countWords(items.length, total, search)}
          </span>
          {pages.hasNextPage ? (
            <Button
              size="sm"
              variant="ghost"
              disabledReason={pages.isFetchingNextPage ? 'Reading older snapshots…' : null}
              icon={pages.isFetchingNextPage ? <Loader2 size={13} className="spin" aria-hidden /> : null}
              title={`Adds the next ${Math.min(SNAPSHOT_PAGE, total - items.length)} older snapshots to From and To`}
              onClick={() => void pages.fetchNextPage()}
            >
              Show older
            </Button>
          ) : null}
        </div>
      </div>
    </>
  )
}

/** What From and To hold: "the newest 100 of 2,345 snapshots", "all 12", "the 3 snapshots mentioning “menu”". */
function countWords(loaded: number, total: number, search: string): string {
  const n = (x: number) => x.toLocaleString('en')
  const some = (x: number) => (x === 1 ? 'the one snapshot' : `the ${n(x)} snapshots`)
  if (search) {
    if (total === 0) return `No snapshot mentions “${search}”`
    return loaded < total
      ? `From and To list the newest ${n(loaded)} of ${n(total)} snapshots mentioning “${search}”`
      : `From and To list ${some(total)} mentioning “${search}”`
  }
  if (total === 0) return 'No snapshots yet'
  return loaded < total
    ? `From and To list the newest ${n(loaded)} of ${n(total)} snapshots`
    : `From and To list all ${n(total)} snapshots`
}
