import { brainstormDomains } from '../../../../shared/brainstorm'
import type { BrainstormDetail } from '../../../../shared/api/brainstorm'
import { cx } from '../../ui'

/** IDEATE's counters: ideas, the twelve domains (covered ones filled), the lens, the next interrupt and pivot. */
export function Counters({ session }: { session: BrainstormDetail }) {
  const covered = new Set(session.domainsCovered)
  return (
    <section className="bs-counters" aria-label="Counters">
      <dl className="bs-stats">
        <div>
          <dt>Ideas</dt>
          <dd data-testid="idea-count">{session.ideaCount}</dd>
        </div>
        <div>
          <dt>Lens</dt>
          <dd>{session.lens ?? '—'}</dd>
        </div>
        <div>
          <dt>Next interrupt</dt>
          <dd>{session.nextInterruptAt === null ? 'none left' : `at ${session.nextInterruptAt}`}</dd>
        </div>
        <div>
          <dt>Next pivot</dt>
          <dd>at {session.nextPivotAt}</dd>
        </div>
      </dl>
      <p className="bs-domains-label">Domains covered: {covered.size} of 12</p>
      <ul className="chip-list bs-domains" aria-label={`Domains covered: ${covered.size} of 12`}>
        {brainstormDomains.map((d) => (
          <li
            key={d.tag}
            className={cx('bs-domain', covered.has(d.tag) && 'is-covered')}
            title={d.name}
            aria-label={`${d.tag}${covered.has(d.tag) ? ', covered' : ''}`}
          >
            {d.tag}
          </li>
        ))}
      </ul>
    </section>
  )
}
