import { Markdown } from '../../ui'

/** About twice what the live box (160 px high) shows at once. */
const LIVE_VIEW_CHARS = 2_000
import { useLiveTaskText } from './liveTaskText'

/**
 * The running task's streamed text: the only thing a token re-renders. Paragraphs that are finished render as
 * markdown (parsed again only when another one finishes); the one being written stays plain text until it does.
 */
export function LiveText({
  projectId,
  task,
  before = '',
}: {
  projectId: number
  task: number
  before?: string
}) {
  const streamed = useLiveTaskText((s) => {
    const live = s.byProject[projectId]
    return live && live.task === task ? live.text : ''
  })
  const text = joinStream(before, streamed)
  if (!text.trim()) return null
  const view = lastPart(text)
  const cut = settledEnd(view)
  const settled = view.slice(0, cut)
  const tail = view.slice(cut).replace(/^\n+/, '')
  return (
    <div className="task-card-live" aria-live="off" data-testid="task-live">
      <div>
        {settled.trim() ? <Markdown text={settled} /> : null}
        {tail ? <p className="task-card-live-tail">{tail}</p> : null}
      </div>
    </div>
  )
}

/**
 * The end of the text, as much as the live box can show: laying out all of a long stream at every frame would
 * cost more than the frame has. Cut at a paragraph start where there is one, so the markdown stays whole.
 */
export function lastPart(text: string): string {
  if (text.length <= LIVE_VIEW_CHARS) return text
  const from = text.length - LIVE_VIEW_CHARS
  const paragraph = text.indexOf('\n\n', from)
  return text.slice(paragraph === -1 || paragraph > text.length - LIVE_VIEW_CHARS / 2 ? from : paragraph + 2)
}

/** Where the finished paragraphs end: the last blank line outside a code fence (0: none finished yet). */
export function settledEnd(text: string): number {
  const cut = text.lastIndexOf('\n\n')
  if (cut <= 0) return 0
  // An odd number of fences before the cut means a code block is still open: it is not finished either.
  const fences = text.slice(0, cut).match(/^\s{0,3}(```|~~~)/gm)?.length ?? 0
  return fences % 2 ? 0 : cut
}

/**
 * The stretch's text read from the core (`before`, up to when it was read) joined with what this page heard stream
 * (`live`, since it subscribed): both are parts of one text, overlapping where the page heard what the core had.
 */
export function joinStream(before: string, live: string): string {
  if (!before) return live
  if (!live) return before
  if (live.startsWith(before)) return live
  if (before.includes(live)) return before
  // Where the live part starts inside `before`: found by its first characters, or among the last few.
  const PROBE = 64
  const probe = live.slice(0, PROBE)
  for (let i = before.indexOf(probe); i !== -1; i = before.indexOf(probe, i + 1)) {
    if (live.startsWith(before.slice(i))) return before.slice(0, i) + live
  }
  for (let i = Math.max(0, before.length - PROBE); i < before.length; i++) {
    if (live.startsWith(before.slice(i))) return before.slice(0, i) + live
  }
  return before + live
}
