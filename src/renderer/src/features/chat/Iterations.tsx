import {
  ChevronDown,
  ChevronRight,
  CircleAlert,
  CircleCheck,
  CircleX,
  Hourglass,
  RefreshCw,
  Repeat,
  Save,
  Shuffle,
} from 'lucide-react'
import { memo, useMemo, type ReactNode } from 'react'
import type {
  IterationDetailDto,
  IterationEntryDto,
  TaskCardDto,
  ToolCallDetailDto,
} from '../../../../shared/api/chat'
import { McpCallMark } from './McpCallMark'
import { errorMessage, useCall } from '../../app/queries'
import { cx, Markdown } from '../../ui'
import { useRuns, type ProjectRun } from '../../app/runStore'
import { useChatUi } from './chatUi'
import { LiveText } from './LiveText'
import { formatDurationShort as formatDuration } from '../../../../shared/format'
import { GateChips } from './GateChips'
import { MiddlePath } from './MiddlePath'
import { fileChange, diffOf, readArgs } from './toolArgs'
import { DiffCounts, ReadableArgs, ToolDiff } from './ToolDiff'
import { commandOf, patchFiles } from './patchFiles'
import './engineCard.css'

/** Renders the running task's streamed text, after `before` (text read from the core that it continues). */
type LiveSlot = ((before?: string) => ReactNode) | null

/** Open state kept in the chat's UI slice, so a card scrolled away and back is as the reader left it. */
function useOpen(key: string, byDefault: boolean): [boolean, (open: boolean) => void] {
  const open = useChatUi((s) => s.open[key] ?? byDefault)
  return [open, (value) => useChatUi.getState().setOpen(key, value)]
}

/** A button that opens and closes the region after it. */
function Disclosure({
  open,
  onToggle,
  className,
  children,
}: {
  open: boolean
  onToggle(open: boolean): void
  className: string
  children: ReactNode
}) {
  return (
    <button
      type="button"
      className={cx('row-button', className)}
      aria-expanded={open}
      onClick={() => onToggle(!open)}
    >
      {open ? <ChevronDown size={13} aria-hidden /> : <ChevronRight size={13} aria-hidden />}
      {children}
    </button>
  )
}

/**
 * The task's iterations, collapsed to one line until opened (open by itself while the task runs): each
 * iteration with the model's text, its tool calls, the loop's notices and the gates it ran. Read with
 * `chat.taskDetail` only when opened, so a long conversation of closed cards stays light.
 */
export const Iterations = memo(function Iterations({
  card,
  projectId,
}: {
  card: TaskCardDto
  projectId: number
}) {
  const live = card.status === 'running'
  const [open, setOpen] = useOpen(`run:${card.runId}`, live)
  // While it runs, the iteration under way counts too.
  const current = useRuns((s) => (live ? liveIteration(s.runs[projectId], card.task) : 0))
  const iterations = Math.max(iterationCount(card), current)
  if (card.runId === null || (iterations === 0 && !live)) return null
  const calls = card.toolCallCount
  const task = card.task
  const liveText: LiveSlot =
    live && task !== null ? (before) => <LiveText projectId={projectId} task={task} before={before} /> : null
  return (
    <section className="iterations" aria-label="Iterations">
      <Disclosure open={open} onToggle={setOpen} className="iterations-toggle">
        {iterations} iteration{iterations === 1 ? '' : 's'} · {calls} tool call{calls === 1 ? '' : 's'}
      </Disclosure>
      {open ? <IterationList projectId={projectId} runId={card.runId} liveText={liveText} /> : liveText?.()}
    </section>
  )
})

/**
 * The run's row counts finished iterations: one under way (after a reload) or cut short (an interrupted task) shows
 * by its iteration row, or by its tool calls for a run from before the card carried that row.
 */
export function iterationCount(card: TaskCardDto): number {
  return Math.max(card.iterations, card.lastIteration?.number ?? 0, ...card.toolCalls.map((t) => t.iteration))
}

/** The iteration the running task is in, from its latest iteration.started (0 before the first). */
function liveIteration(run: ProjectRun | undefined, task: number | null): number {
  if (!run || run.task !== task) return 0
  for (let i = run.events.length - 1; i >= 0; i--) {
    const e = run.events[i]!
    if (e.type === 'iteration.started') return e.iteration ?? 0
  }
  return 0
}

function IterationList({
  projectId,
  runId,
  liveText,
}: {
  projectId: number
  runId: number
  /** The running task's streamed text, shown where it is being written: at the end of its iteration. */
  liveText: LiveSlot
}) {
  const detail = useCall('chat.taskDetail', { projectId, runId })
  if (detail.error || !detail.data) {
    return (
      <>
        {detail.error ? (
          <p className="field-error">{errorMessage(detail.error)}</p>
        ) : (
          <p className="muted iterations-loading">Reading the iterations…</p>
        )}
        {liveText?.()}
      </>
    )
  }
  const iterations = detail.data.iterations
  if (!iterations.length)
    return liveText?.() ?? <p className="muted iterations-loading">No iteration has started yet.</p>
  const newest = iterations[iterations.length - 1]!
  const last = newest.number
  // The iteration under way may not have its row yet (it is read again on the loop's next event).
  const liveAfter = newest.endedAt === null ? null : liveText?.()
  return (
    <>
      {detail.data.earlier ? (
        <p className="muted iterations-loading">
          … {detail.data.earlier} earlier iteration{detail.data.earlier === 1 ? '' : 's'} not shown: the
          latest {iterations.length} are.
        </p>
      ) : null}
      <ol className="iteration-list">
        {iterations.map((it) => (
          <IterationItem
            key={it.number}
            runId={runId}
            iteration={it}
            latest={it.number === last}
            liveText={it.number === last && it.endedAt === null ? liveText : null}
          />
        ))}
      </ol>
      {liveAfter}
    </>
  )
}

const IterationItem = memo(function IterationItem({
  runId,
  iteration,
  latest,
  liveText,
}: {
  runId: number
  iteration: IterationDetailDto
  latest: boolean
  liveText: LiveSlot
}) {
  // The newest iteration is open at first: it is where the task is, or how it ended.
  const [open, setOpen] = useOpen(`run:${runId}:it:${iteration.number}`, latest)
  const tools = iteration.entries.filter((e) => e.kind === 'tool').length
  const failed = iteration.entries.some((e) => e.kind === 'tool' && !e.call.ok)
  const running = liveText !== null
  // The text the core had not written yet when the detail was read (a reload mid-stretch) continues in the live
  // text, joined with what streamed since: shown once, where it is being written.
  const last = iteration.entries[iteration.entries.length - 1]
  const before = running && last?.kind === 'text' ? last.text : undefined
  const entries = before === undefined ? iteration.entries : iteration.entries.slice(0, -1)
  const duration = iteration.endedAt === null ? null : formatDuration(iteration.endedAt - iteration.startedAt)
  return (
    <li className="iteration">
      <Disclosure open={open} onToggle={setOpen} className="iteration-head">
        <span className="iteration-name">Iteration {iteration.number}</span>
        <span className="muted">
          {[
            iteration.phase,
            `${tools} tool call${tools === 1 ? '' : 's'}`,
            duration,
            running ? 'running' : iteration.outcome,
          ]
            .filter(Boolean)
            .join(' · ')}
        </span>
        {failed ? <CircleAlert size={12} className="iteration-warn" aria-label="a tool call failed" /> : null}
      </Disclosure>
      {open ? (
        <div className="iteration-body">
          {entries.map((entry, i) => (
            <Entry key={i} entry={entry} runId={runId} iteration={iteration.number} />
          ))}
          {running ? (
            (liveText?.(before) ?? <p className="muted">Waiting for the model…</p>)
          ) : iteration.entries.length === 0 && !iteration.gates.length ? (
            <p className="muted">Nothing was recorded.</p>
          ) : null}
          {iteration.gates.length ? <GateChips gates={iteration.gates} /> : null}
        </div>
      ) : null}
    </li>
  )
})

const notices: Record<
  Exclude<IterationEntryDto['kind'], 'text' | 'tool'>,
  { icon: ReactNode; label: string }
> = {
  phase: { icon: <Shuffle size={12} aria-hidden />, label: 'Phase change' },
  stall: { icon: <Repeat size={12} aria-hidden />, label: 'Stall' },
  checkpoint: { icon: <Save size={12} aria-hidden />, label: 'Checkpoint' },
  limit: { icon: <Hourglass size={12} aria-hidden />, label: 'Usage limit' },
  retry: { icon: <RefreshCw size={12} aria-hidden />, label: 'Retry' },
}

function Entry({ entry, runId, iteration }: { entry: IterationEntryDto; runId: number; iteration: number }) {
  if (entry.kind === 'text') return <Markdown className="iteration-text" text={entry.text} />
  if (entry.kind === 'tool')
    return <ToolCallCard call={entry.call} openKey={`run:${runId}:it:${iteration}:tool:${entry.call.seq}`} />
  const notice = notices[entry.kind]
  return (
    <p className={`iteration-notice notice-${entry.kind}`}>
      {notice.icon}
      <span>
        <strong>{notice.label}:</strong> {entry.text}
      </span>
    </p>
  )
}

export function formatMs(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`
}

/** One tool call: a compact line (name, path, ok or error, duration); opened, its arguments and its answer. */
export function ToolCallCard({ call, openKey }: { call: ToolCallDetailDto; openKey: string }) {
  const [open, setOpen] = useOpen(openKey, false)
  const shownResult = call.result ?? ''
  const resultCut = call.resultBytes > new TextEncoder().encode(shownResult).length
  // A write or an edit reads as a diff; other tools' arguments field by field. Worked out once per call.
  const { read, change, lines, path, command } = useMemo(() => {
    const read = readArgs(call.args)
    const change = fileChange(call.name, read, call.path)
    // An engine's patch names its files in its arguments.
    const path = call.path ?? patchFiles(call.name, read)
    return { read, change, lines: change ? diffOf(change) : null, path, command: commandOf(call.name, read) }
  }, [call.args, call.name, call.path])
  return (
    <div className={`tool-call${call.ok ? '' : ' tool-error'}`}>
      <Disclosure open={open} onToggle={setOpen} className="tool-call-head">
        {call.ok ? <CircleCheck size={12} aria-label="ok" /> : <CircleX size={12} aria-label="error" />}
        <code>{call.name}</code>
        <McpCallMark toolName={call.name} focusable={false} />
        {lines ? <DiffCounts lines={lines} /> : null}
        {path ? <MiddlePath className="tool-call-path" path={path} /> : null}
        {!path && command ? (
          <code className="tool-call-command" title={command}>
            {command}
          </code>
        ) : null}
        {/* An engine's calls come without their time (0): no "0 ms" that reads as measured. */}
        {call.durationMs > 0 ? <span className="tool-call-time">{formatMs(call.durationMs)}</span> : null}
      </Disclosure>
      {open ? (
        <div className="tool-call-body">
          {change && lines ? (
            <ToolDiff change={change} lines={lines} cut={read?.cut ?? false} />
          ) : (
            <>
              <p className="tool-call-label">Arguments</p>
              {read ? <ReadableArgs args={read.args} /> : <pre>{call.args}</pre>}
            </>
          )}
          {call.argsOmitted && !change ? (
            <p className="muted tool-call-note">
              … {call.argsOmitted.toLocaleString()} more characters not shown.
            </p>
          ) : null}
          <p className="tool-call-label">{call.ok ? 'Result' : 'Error'}</p>
          {call.result === null ? (
            <p className="muted tool-call-note">
              Not kept ({call.resultBytes.toLocaleString()} bytes): only tasks run from this version keep a
              tool&apos;s answer.
            </p>
          ) : (
            <>
              <pre>{shownResult}</pre>
              {resultCut ? (
                <p className="muted tool-call-note">
                  Shortened: the tool answered {call.resultBytes.toLocaleString()} bytes; this is its start.
                </p>
              ) : null}
            </>
          )}
        </div>
      ) : null}
    </div>
  )
}
