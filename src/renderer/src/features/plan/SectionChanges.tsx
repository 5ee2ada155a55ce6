import type { DiffStatus, PlanDiffNodeDto, StructuralDiff } from '../../../../shared/api/plan'
import { Badge, cx, type Tone } from '../../ui'
import { markerLabel, markerTone } from './markerStyles'

const statusTone: Record<DiffStatus, Tone> = {
  added: 'ok',
  removed: 'bad',
  renamed: 'info',
  moved: 'info',
  changed: 'warn',
  unchanged: 'neutral',
}

interface Row {
  node: PlanDiffNodeDto
  depth: number
}

/** Every node worth a line: the app when it changed, every screen, and the sections that changed or got markers. */
function rows(diff: StructuralDiff): Row[] {
  const out: Row[] = []
  const touched = (n: PlanDiffNodeDto) =>
    n.status !== 'unchanged' || n.markersAdded.length + n.markersRemoved.length > 0
  for (const n of diff.nodes) {
    if (n.kind !== 'app' || touched(n)) out.push({ node: n, depth: 0 })
    for (const c of n.children)
      if (touched(c) || n.status === 'added' || n.status === 'removed') out.push({ node: c, depth: 1 })
  }
  return out
}

const nameOf = (n: PlanDiffNodeDto) =>
  n.kind === 'app' ? 'App' : n.kind === 'screen' ? `screen ${n.name ?? '?'}` : n.label

/** The `list` "Section changes": each element with a coloured status badge, its markers and props; a click shows its lines. */
export function SectionChanges({
  diff,
  onReveal,
}: {
  diff: StructuralDiff
  onReveal(line: number, side: 'before' | 'after'): void
}) {
  const list = rows(diff)
  return (
    <section className="plan-diff-section">
      <h3 className="plan-pane-title">
        Changes
        <span className="plan-pane-count muted">
          {diff.identical
            ? 'identical'
            : `${diff.counts.added} added, ${diff.counts.removed} removed, ${diff.counts.changed} changed, ` +
              `${diff.counts.renamed + diff.counts.moved} renamed or moved, ` +
              `${diff.counts.markersAdded} marker${diff.counts.markersAdded === 1 ? '' : 's'} added, ${diff.counts.markersRemoved} removed`}
        </span>
      </h3>
      <ul className="plan-changes" aria-label="Section changes">
        {list.map(({ node: n, depth }, i) => {
          const where = n.after ?? n.before
          const side = n.after ? 'after' : 'before'
          const name = [
            nameOf(n),
            n.status,
            ...n.markersAdded.map((m) => `${markerLabel[m.kind]} marker added`),
            ...n.markersRemoved.map((m) => `${markerLabel[m.kind]} marker removed`),
          ].join(', ')
          return (
            <li key={i} aria-label={name} className={cx('plan-change', depth > 0 && 'plan-change-nested')}>
              <button
                type="button"
                className="row-button plan-change-head"
                onClick={() => where && onReveal(where.line, side)}
                title={where ? `Show lines ${where.line}–${where.endLine}` : undefined}
              >
                <span className="plan-change-name">
                  {nameOf(n)}
                  {n.previousName && n.previousName !== n.name ? (
                    <span className="muted"> (was {n.previousName})</span>
                  ) : null}
                </span>
                <Badge tone={statusTone[n.status]}>{n.status}</Badge>
                {n.markersAdded.map((m, k) => (
                  <Badge key={`a${k}`} tone={markerTone[m.kind]} title={m.description}>
                    + {markerLabel[m.kind]}
                  </Badge>
                ))}
                {n.markersRemoved.map((m, k) => (
                  <Badge key={`r${k}`} tone="neutral" className="plan-marker-gone" title={m.description}>
                    − {markerLabel[m.kind]}
                  </Badge>
                ))}
                {where ? <span className="plan-change-lines muted">line {where.line}</span> : null}
              </button>
              {n.props.length ? (
                <ul className="plan-change-props">
                  {n.props.map((p) => (
                    <li key={p.name}>
                      <code>{p.name}</code>: <del>{p.before ?? '(none)'}</del> →{' '}
                      <ins>{p.after ?? '(none)'}</ins>
                    </li>
                  ))}
                </ul>
              ) : null}
            </li>
          )
        })}
      </ul>
    </section>
  )
}
