import { memo } from 'react'
import type { OutlineScreen } from '../../../../shared/api/plan'
import { Badge } from '../../ui'
import { markerLabel, markerTone } from './markerStyles'

/** Screens → sections with their markers and files; a click jumps to the element. */
export const Outline = memo(function Outline({
  screens,
  onJump,
}: {
  screens: OutlineScreen[] | null
  onJump(line: number): void
}) {
  return (
    <nav className="plan-outline" aria-label="Outline">
      <h3 className="plan-pane-title">Outline</h3>
      {screens === null ? (
        <p className="muted plan-pane-note">Reading the plan…</p>
      ) : screens.length === 0 ? (
        <p className="muted plan-pane-note">No screens yet.</p>
      ) : (
        <ul className="plan-outline-screens">
          {/* Keyed by position: typing shifts lines, and re-keying would rebuild every row. */}
          {screens.map((s, i) => (
            <li key={i}>
              <button
                type="button"
                className="row-button plan-outline-item plan-outline-screen"
                onClick={() => onJump(s.line)}
              >
                <span className="plan-outline-name">{s.name ?? '(no screen)'}</span>
                {s.markers.map((k, m) => (
                  <Badge key={m} tone={markerTone[k]}>
                    {markerLabel[k]}
                  </Badge>
                ))}
              </button>
              <ul className="plan-outline-sections">
                {s.sections.map((sec, j) => (
                  <li key={j}>
                    <button
                      type="button"
                      className="row-button plan-outline-item"
                      onClick={() => onJump(sec.line)}
                      title={sec.files.join('\n') || 'No files'}
                    >
                      <span className="plan-outline-name">{sec.gumdrop ?? '(no gumdrop)'}</span>
                      {sec.markers.map((k) => (
                        <Badge key={k} tone={markerTone[k]}>
                          {markerLabel[k]}
                        </Badge>
                      ))}
                      <span className="plan-outline-files muted">
                        {sec.files.length ? sec.files.map((f) => f.split('/').pop()).join(', ') : 'no files'}
                      </span>
                    </button>
                  </li>
                ))}
              </ul>
            </li>
          ))}
        </ul>
      )}
    </nav>
  )
})
