import { ArrowLeft, Maximize2 } from 'lucide-react'
import { useMemo, useState } from 'react'
import type { DiffStatDto } from '../../../../shared/api/snapshots'
import { errorMessage } from '../../app/queries'
import { Badge, Banner, Button, cx, Segmented, type Tone } from '../../ui'
import { DiffView } from '../../ui/monaco'
import {
  WORKING,
  callFile,
  diffCall,
  formatSize,
  languageOf,
  orient,
  orientStat,
  sideLabel,
  statText,
  type ChangeStatus,
  type ChangedFile,
  type CompareRange,
} from './compareRange'
import { useTagExists } from './compareQueries'
import { useDiffStats, useFileDiff, useRangeDiff } from './queries'
import { RangePickers } from './RangePickers'
import { splitOwn } from '../../../../shared/ralphFiles'
import { plural } from './rows'
import { useTimelineUi, type DiffLayout } from './timelineUi'

/** The core's diffStats takes this many files at a time; further files are listed without line counts. */
const STATS_LIMIT = 1000

const statusTone: Record<ChangeStatus, Tone> = {
  added: 'ok',
  modified: 'warn',
  deleted: 'bad',
  renamed: 'info',
  typechange: 'info',
}
const statusLetter: Record<ChangeStatus, string> = {
  added: 'A',
  modified: 'M',
  deleted: 'D',
  renamed: 'R',
  typechange: 'T',
}
const statusWord = (s: ChangeStatus) => (s === 'typechange' ? 'type changed' : s)

/**
 * The Timeline tab's Compare view: From and To (any snapshot or the working copy), the `list` "Changed files" with
 * each file's status and line counts, and Monaco's diff editor for the chosen file.
 */
export function Compare({
  projectId,
  range,
  full = false,
}: {
  projectId: number
  range: CompareRange
  /** Shown full size (the large dialog): files beside the diff, and the remembered layout. */
  full?: boolean
}) {
  const toWorkingIfMissing = useTimelineUi((s) => s.toWorkingIfMissing)
  const close = useTimelineUi((s) => s.closeCompare)
  const setRange = useTimelineUi((s) => s.setRange)
  const layout = useTimelineUi((s) => (full ? s.fullLayout : s.layout))
  const setLayout = useTimelineUi((s) => (full ? s.setFullLayout : s.setLayout))
  const setFullSize = useTimelineUi((s) => s.setFullSize)
  // While the full-size dialog shows the diff, the side panel does not keep a second editor behind it.
  const elsewhere = useTimelineUi((s) => !full && s.fullSize)
  const selected = useTimelineUi((s) => s.file)
  const setFile = useTimelineUi((s) => s.setFile)
  // A task card asks for task-N-post; a task without one (running, failed) is compared with the working copy.
  const exists = useTagExists(projectId, range.to, toWorkingIfMissing)
  const shown = toWorkingIfMissing && exists === false ? { ...range, to: WORKING } : range
  const waiting = toWorkingIfMissing && range.to !== WORKING && exists === undefined
  const call = waiting ? null : diffCall(shown)
  const swapped = call?.swapped ?? false
  const diff = useRangeDiff(projectId, call)
  const files = useMemo(
    () => (diff.data ? byRelevance(diff.data.entries.map((e) => orient(e, swapped))) : []),
    [diff.data, swapped],
  )
  const own = useMemo(() => splitOwn(files, (f) => f.path), [files])
  const asked = useMemo(() => files.slice(0, STATS_LIMIT).map((f) => callFile(f, swapped)), [files, swapped])
  const stats = useDiffStats(projectId, call, asked)
  // diffStats answers in the order it was asked: the files as listed.
  const statOf = useMemo(() => {
    const map = new Map<string, DiffStatDto>()
    stats.data?.files.forEach((s, i) => {
      const f = files[i]
      if (f) map.set(f.path, orientStat(s, swapped))
    })
    return map
  }, [stats.data, swapped, files])
  const file = files.find((f) => f.path === selected) ?? null

  const choose = (side: 'from' | 'to', value: string) => setRange({ ...shown, [side]: value })

  return (
    <div className="compare" data-testid="compare">
      <div className="compare-controls">
        {full ? null : (
          <>
            <Button size="sm" variant="ghost" icon={<ArrowLeft size={13} aria-hidden />} onClick={close}>
              Back to the timeline
            </Button>
            <Button
              size="sm"
              variant="ghost"
              className="compare-open-full"
              icon={<Maximize2 size={13} aria-hidden />}
              title="Open Compare full size, with the files beside the diff (Esc closes it)"
              onClick={() => setFullSize(true)}
            >
              Open full size
            </Button>
          </>
        )}
        <Segmented
          label="Diff layout"
          className="timeline-filter compare-layout"
          options={
            [
              ['inline', 'Inline'],
              ['side-by-side', 'Side by side'],
            ] as const
          }
          value={layout}
          onChange={setLayout}
        />
        {/* Keyed by project: another project's Compare starts without this one's find. */}
        <RangePickers key={projectId} projectId={projectId} range={shown} onChoose={choose} />
      </div>
      {call === null && !waiting ? (
        <p className="timeline-note muted">
          From and To are the same ({sideLabel(shown.from)}): nothing to compare.
        </p>
      ) : diff.error ? (
        <Banner tone="error">Could not compare: {errorMessage(diff.error)}</Banner>
      ) : !diff.data ? (
        <p className="timeline-note muted" role="status">
          Comparing {sideLabel(shown.from)} with {sideLabel(shown.to)}…
        </p>
      ) : (
        <>
          <p className="compare-summary muted" data-testid="compare-summary">
            {files.length === 0
              ? `No changes from ${sideLabel(shown.from)} to ${sideLabel(shown.to)}.`
              : own.user.length === 0
                ? `None of your files changed; ${plural(own.ralph.length, 'of Ralph’s own files', 'of Ralph’s own files')} did.`
                : `${plural(own.user.length, 'file')} changed: ${countWords(countsOf(own.user))}`}
            {stats.error ? ` (line counts unavailable: ${errorMessage(stats.error)})` : ''}
          </p>
          <div className={full ? 'compare-body compare-body-full' : 'compare-body'}>
            {files.length ? (
              <div
                className={cx('compare-file-lists', file !== null && !full && 'compare-file-lists-compact')}
              >
                {own.user.length ? (
                  <ChangedFiles
                    files={own.user}
                    statOf={statOf}
                    selected={file?.path ?? null}
                    compact={false}
                    onChoose={(f) => setFile(f.path === selected ? null : f.path)}
                  />
                ) : null}
                {own.ralph.length ? (
                  <RalphOwnFiles
                    files={own.ralph}
                    statOf={statOf}
                    selected={file?.path ?? null}
                    compact={false}
                    onChoose={(f) => setFile(f.path === selected ? null : f.path)}
                  />
                ) : null}
              </div>
            ) : null}
            {file && elsewhere ? (
              <p className="timeline-note muted">{file.path} is open full size.</p>
            ) : file ? (
              <FileDiffPane projectId={projectId} range={shown} call={call!} file={file} layout={layout} />
            ) : files.length ? (
              <p className="timeline-note muted">Choose a file to see its changes.</p>
            ) : null}
          </div>
        </>
      )}
    </div>
  )
}

interface FileListProps {
  files: ChangedFile[]
  statOf: Map<string, DiffStatDto>
  selected: string | null
  compact: boolean
  onChoose(file: ChangedFile): void
}

/**
 * Ralph's own files (under .ralph/), after the user's: collapsed unless one of them is chosen, with their count;
 * the `list` "Ralph’s own files".
 */
function RalphOwnFiles(props: FileListProps) {
  const chosen = props.files.some((f) => f.path === props.selected)
  const [open, setOpen] = useState(false)
  return (
    <details
      className="ralph-own compare-ralph-own"
      data-testid="ralph-own-files"
      open={open || chosen}
      onToggle={(e) => setOpen(e.currentTarget.open)}
    >
      <summary title="Ralph’s notes, plan and task state in .ralph/: not counted with your files.">
        Ralph’s own files <span className="muted">({props.files.length})</span>
      </summary>
      <ChangedFiles {...props} name="Ralph’s own files" />
    </details>
  )
}

/** The `list` "Changed files": status, path (with where a renamed file was) and lines added and deleted. */
export function ChangedFiles({
  files,
  statOf,
  selected,
  compact,
  onChoose,
  name: listName = 'Changed files',
}: FileListProps & { name?: string }) {
  return (
    <ul className={cx('changed-files', compact && 'changed-files-compact')} aria-label={listName}>
      {files.map((f) => {
        const stat = statText(statOf.get(f.path))
        const name = [f.path, statusWord(f.status), f.oldPath ? `from ${f.oldPath}` : '', stat?.words ?? '']
          .filter(Boolean)
          .join(', ')
        return (
          <li key={f.path} aria-label={name} className="changed-file">
            <button
              type="button"
              className={cx('row-button', 'changed-file-button', f.path === selected && 'changed-file-on')}
              aria-pressed={f.path === selected}
              onClick={() => onChoose(f)}
            >
              <Badge tone={statusTone[f.status]} title={statusWord(f.status)}>
                {statusLetter[f.status]}
              </Badge>
              <span className="changed-file-path" title={f.path}>
                {f.oldPath ? <span className="muted">{f.oldPath} → </span> : null}
                {f.path}
              </span>
              {stat ? (
                <span className="changed-file-stat">
                  {stat.short.startsWith('+') ? (
                    <>
                      <span className="count-add">+{statOf.get(f.path)!.additions}</span>{' '}
                      <span className="count-del">−{statOf.get(f.path)!.deletions}</span>
                    </>
                  ) : (
                    <span className="muted">{stat.short}</span>
                  )}
                </span>
              ) : null}
            </button>
          </li>
        )
      })}
    </ul>
  )
}

/** One file's diff: Monaco's diff editor, or why there is none (binary, too large). */
function FileDiffPane({
  projectId,
  range,
  call,
  file,
  layout,
}: {
  projectId: number
  range: CompareRange
  call: { target: string; against?: string; swapped: boolean }
  file: ChangedFile
  layout: DiffLayout
}) {
  const data = useFileDiff(projectId, call, callFile(file, call.swapped))
  const sides = data.data
    ? call.swapped
      ? { old: data.data.new, new: data.data.old }
      : { old: data.data.old, new: data.data.new }
    : null
  const title = (
    <div className="compare-file-head">
      <code className="compare-file-path">{file.oldPath ? `${file.oldPath} → ${file.path}` : file.path}</code>
      <span className="muted compare-file-range">
        {file.status === 'added' ? 'new file, ' : file.status === 'deleted' ? 'deleted, ' : ''}
        {sideLabel(range.from)} → {sideLabel(range.to)}
      </span>
    </div>
  )
  let body
  if (data.error)
    body = (
      <Banner tone="error">
        Could not read {file.path}: {errorMessage(data.error)}
      </Banner>
    )
  else if (!sides)
    body = (
      <p className="timeline-note muted" role="status">
        Reading {file.path}…
      </p>
    )
  else if (sides.old.binary || sides.new.binary)
    body = (
      <p className="compare-placeholder" role="note">
        Binary file: no text diff. {sideSizes(sides.old, sides.new)}
      </p>
    )
  else if (sides.old.tooLarge || sides.new.tooLarge)
    body = (
      <p className="compare-placeholder" role="note">
        Too large to show here. {sideSizes(sides.old, sides.new)}
      </p>
    )
  else
    body = (
      <div className="compare-editor" data-testid="compare-editor">
        <DiffView
          key={layout}
          original={sides.old.content ?? ''}
          modified={sides.new.content ?? ''}
          language={languageOf(file.path)}
          originalPath={`file:///ralph-compare/${range.from}/${file.oldPath ?? file.path}`}
          modifiedPath={`file:///ralph-compare/${range.to}/${file.path}`}
          sideBySide={layout === 'side-by-side'}
          // Side by side when asked, even in the narrow side panel (Monaco would fall back to inline there).
          onMount={(editor) =>
            editor.updateOptions({ useInlineViewWhenSpaceIsLimited: layout !== 'side-by-side' })
          }
        />
      </div>
    )
  return (
    <section className="compare-file" aria-label={`Diff of ${file.path}`}>
      {title}
      {body}
    </section>
  )
}

const sideSizes = (old: { exists: boolean; size: number }, now: { exists: boolean; size: number }): string =>
  `${old.exists ? formatSize(old.size) : 'absent'} before, ${now.exists ? formatSize(now.size) : 'absent'} after.`

/** The user's files first, then Ralph's own state under .ralph/ (each in the core's order). */
function byRelevance(files: ChangedFile[]): ChangedFile[] {
  const { user, ralph } = splitOwn(files, (f) => f.path)
  return [...user, ...ralph]
}

type Counts = { added: number; modified: number; deleted: number; renamed: number }

/** How many of the files (already oriented From → To) were added, modified, deleted, renamed. */
function countsOf(files: ChangedFile[]): Counts {
  const c: Counts = { added: 0, modified: 0, deleted: 0, renamed: 0 }
  for (const f of files) c[f.status === 'typechange' ? 'modified' : f.status] += 1
  return c
}

/** "1 added, 2 modified": the kinds that occur, From → To. */
function countWords(c: Counts): string {
  return (['added', 'modified', 'deleted', 'renamed'] as const)
    .filter((k) => c[k] > 0)
    .map((k) => `${c[k]} ${k}`)
    .join(', ')
}
