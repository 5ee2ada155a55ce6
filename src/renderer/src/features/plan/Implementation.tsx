import type { SectionVerdict } from '../../../../shared/api/plan'
import { Badge } from '../../ui'
import { markerLabel, markerTone } from './markerStyles'

const verdictTone = { pass: 'ok', warning: 'warn', failure: 'bad' } as const
const verdictWord = { pass: 'pass', warning: 'warn', failure: 'fail' } as const

/** Plan against implementation: each marked section, its files (changed or not) and the gates' verdicts. */
export function Implementation({
  task,
  sections,
  onReveal,
}: {
  task: number | null
  sections: SectionVerdict[]
  onReveal(line: number): void
}) {
  return (
    <section className="plan-diff-section">
      <h3 className="plan-pane-title">
        Plan against implementation
        <span className="plan-pane-count muted">{task === null ? 'no task' : `task ${task}`}</span>
      </h3>
      {sections.length === 0 ? (
        <p className="muted plan-pane-note">
          {task === null
            ? 'No task to check: neither version names one.'
            : `No section carries markers for task ${task}, so no scope gate applies.`}
        </p>
      ) : (
        <ul className="plan-verdicts" aria-label="Plan against implementation">
          {sections.map((s) => (
            <li key={s.section} aria-label={s.section} className="plan-verdict">
              <button type="button" className="row-button plan-change-head" onClick={() => onReveal(s.line)}>
                <span className="plan-change-name">{s.section}</span>
                {s.markers.map((m, i) => (
                  <Badge key={i} tone={markerTone[m.kind]}>
                    {markerLabel[m.kind]}
                  </Badge>
                ))}
              </button>
              <ul className="plan-verdict-files" aria-label="Files">
                {s.files.map((f) => (
                  <li key={f.path}>
                    <code>{f.path}</code>{' '}
                    <span className={f.changed ? 'count-mod' : 'muted'}>
                      {!f.existsAfter
                        ? 'missing'
                        : !f.existsBefore
                          ? 'created'
                          : f.changed
                            ? 'changed'
                            : 'unchanged'}
                    </span>
                  </li>
                ))}
              </ul>
              <ul className="plan-verdict-gates" aria-label="Verdicts">
                {s.verdicts.map((v, i) => (
                  <li key={i}>
                    <Badge tone={verdictTone[v.severity]}>{verdictWord[v.severity]}</Badge>{' '}
                    <code>{v.gate}</code> {v.message}
                  </li>
                ))}
              </ul>
            </li>
          ))}
        </ul>
      )}
    </section>
  )
}
