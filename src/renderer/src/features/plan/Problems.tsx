import { CircleAlert, TriangleAlert } from 'lucide-react'
import { memo } from 'react'
import type { PlanFinding } from '../../../../shared/api/plan'
import { cx } from '../../ui'

/** Beyond this many, the list says how many more there are; the editor squiggles every one. */
const SHOWN = 100

/** The `list` "Problems": each finding with its rule id and place; a click jumps to its line. */
export const Problems = memo(function Problems({
  findings,
  pending,
  onJump,
}: {
  findings: PlanFinding[] | null
  pending: boolean
  onJump(line: number, column: number): void
}) {
  const failures = findings?.filter((f) => f.severity === 'failure').length ?? 0
  const warnings = (findings?.length ?? 0) - failures
  return (
    <section className="plan-problems" aria-label="Problems panel">
      <h3 className="plan-pane-title">
        Problems
        {findings ? (
          <span className="plan-pane-count muted">
            {failures} failure{failures === 1 ? '' : 's'}, {warnings} warning{warnings === 1 ? '' : 's'}
            {pending ? ' · checking…' : ''}
          </span>
        ) : (
          <span className="plan-pane-count muted">checking…</span>
        )}
      </h3>
      <ul className="plan-problem-list" aria-label="Problems">
        {findings?.length === 0 ? (
          <li className="plan-problem-none muted">No problems: the plan passes every rule.</li>
        ) : null}
        {findings?.slice(0, SHOWN).map((f, i) => (
          <li key={i}>
            <button
              type="button"
              className={cx('row-button', 'plan-problem', `plan-problem-${f.severity}`)}
              onClick={() => onJump(f.line, f.column)}
            >
              {f.severity === 'failure' ? (
                <CircleAlert size={13} aria-label="failure" />
              ) : (
                <TriangleAlert size={13} aria-label="warning" />
              )}
              <code className="plan-problem-rule">{f.rule}</code>
              <span className="plan-problem-message">{f.message}</span>
              <span className="plan-problem-where muted">
                {f.line}:{f.column}
              </span>
            </button>
          </li>
        ))}
        {findings && findings.length > SHOWN ? (
          <li className="plan-problem-none muted">
            … and {findings.length - SHOWN} more, each marked in the editor.
          </li>
        ) : null}
      </ul>
    </section>
  )
})
