import { memo, useMemo } from 'react'
import { countLines, type DiffLine, type FileChange } from './toolArgs'
import { familyOf, tokenize } from './highlight'
import './taskCard.css'

/** Lines a card shows of one change; the rest is counted (the full diff is one click away, in Compare). */
const MAX_LINES = 400

/** "+12 −3": the change's size, for the tool call's one line. */
export function DiffCounts({ lines }: { lines: readonly DiffLine[] }) {
  const { added, removed } = countLines(lines)
  return (
    <span
      className="diff-counts"
      aria-label={`${added} line${added === 1 ? '' : 's'} added, ${removed} removed`}
    >
      <span className="diff-count-add">+{added}</span> <span className="diff-count-del">−{removed}</span>
    </span>
  )
}

/** A write or an edit as a unified diff with the code highlighted: what was removed (−) and added (+). */
export const ToolDiff = memo(function ToolDiff({
  change,
  lines,
  cut,
}: {
  change: FileChange
  lines: readonly DiffLine[]
  /** The stored arguments end early: the diff is the start of the change. */
  cut: boolean
}) {
  const family = familyOf(change.path)
  const shown = useMemo(
    () => lines.slice(0, MAX_LINES).map((l) => ({ ...l, tokens: tokenize(l.text, family) })),
    [lines, family],
  )
  const more = lines.length - shown.length
  return (
    <div className="code-diff" role="group" aria-label={`Changes to ${change.path}`}>
      <p className="code-diff-caption muted">
        {change.before === null
          ? 'Writes the whole file (+ each line written):'
          : 'Edits part of the file (− removed, + added):'}
      </p>
      <pre className="code-diff-lines">
        {shown.map((l, i) => (
          <div key={i} className={`diff-line diff-${l.kind}`}>
            <span
              className="diff-sign"
              aria-label={l.kind === 'add' ? 'added' : l.kind === 'del' ? 'removed' : undefined}
            >
              {l.kind === 'add' ? '+' : l.kind === 'del' ? '−' : ' '}
            </span>
            <code>
              {l.tokens.map((t, j) =>
                t.kind === 'plain' ? (
                  t.text
                ) : (
                  <span key={j} className={`tok-${t.kind}`}>
                    {t.text}
                  </span>
                ),
              )}
            </code>
          </div>
        ))}
      </pre>
      {more > 0 ? <p className="muted tool-call-note">… {more} more lines not shown here.</p> : null}
      {cut ? (
        <p className="muted tool-call-note">
          Only the start of this change is kept with the task; Compare shows all of it.
        </p>
      ) : null}
    </div>
  )
})

/** A tool's arguments as a person reads them: each field on its own, text with its real line breaks. */
export function ReadableArgs({ args }: { args: Record<string, unknown> }) {
  return (
    <dl className="tool-args">
      {Object.entries(args).map(([key, value]) => (
        <div key={key} className="tool-arg">
          <dt>{key}</dt>
          <dd>
            <pre>{typeof value === 'string' ? value : JSON.stringify(value, null, 2)}</pre>
          </dd>
        </div>
      ))}
    </dl>
  )
}
