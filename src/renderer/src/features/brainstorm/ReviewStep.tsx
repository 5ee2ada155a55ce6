import type { BrainstormDetail } from '../../../../shared/api/brainstorm'
import { Badge, Button, type Tone } from '../../ui'
import { ChoiceButtons, splitLabel } from './ChoiceButtons'
import { Drafts, Problems } from './OutputStep'
import { choiceOf, type StepProps } from './types'

const tone: Record<string, Tone> = { HIGH: 'bad', MED: 'warn', LOW: 'info' }

/** REVIEW: the forced findings, each applied or dismissed; then the files, Update or New draft, and Write files. */
export function ReviewStep({ session, busy, answer }: StepProps) {
  const failed = choiceOf(session, 'failed')
  const existing = choiceOf(session, 'existing-vision') ?? choiceOf(session, 'existing-roadmap')
  const write = choiceOf(session, 'write')
  const current = session.findings.findIndex((f) => f.decision === null)
  return (
    <div className="bs-review">
      {failed ? (
        <>
          <Problems title="The review could not be completed." problems={session.problems} />
          <ChoiceButtons choice={failed} busy={busy} onChoose={answer} hide={['stop', 'edited']} />
        </>
      ) : null}
      {existing ? (
        <section className="bs-card bs-files" aria-label="Existing file">
          <p>{existing.text}</p>
          <ChoiceButtons choice={existing} busy={busy} onChoose={answer} />
          <p className="muted">
            {existing.options
              .map((o) => splitLabel(o.label))
              .map((l) => `${l.name}: ${l.detail}`)
              .join(' · ')}
          </p>
        </section>
      ) : null}
      {write ? (
        <section className="bs-card bs-files" aria-label="Files">
          <p>{write.text}</p>
          <ChoiceButtons choice={write} busy={busy} onChoose={answer} hide={['later']} />
        </section>
      ) : null}
      {session.findings.length ? (
        <Findings session={session} current={current} busy={busy} onDecide={answer} />
      ) : !failed ? (
        <p className="muted" role="status">
          The reviewer is reading both documents for 5 to 15 problems…
        </p>
      ) : null}
      {current < 0 && session.findings.some((f) => f.decision === 'apply') && !existing && !write && busy ? (
        <p className="muted" role="status">
          Revising both documents with the findings you applied…
        </p>
      ) : null}
      <Drafts session={session} />
    </div>
  )
}

function Findings({
  session,
  current,
  busy,
  onDecide,
}: {
  session: BrainstormDetail
  current: number
  busy: string | null
  onDecide: (value: string) => void
}) {
  const applied = session.findings.filter((f) => f.decision === 'apply').length
  return (
    <section aria-label="Review findings">
      <h3>
        Findings{' '}
        <span className="muted">
          ({session.findings.length}, {applied} to apply)
        </span>
      </h3>
      <ol className="bs-findings" aria-label="Findings">
        {session.findings.map((f, i) => {
          const why =
            f.decision !== null
              ? `Already ${f.decision === 'apply' ? 'applied' : 'dismissed'}.`
              : i !== current
                ? `Decide finding ${current + 1} first: they are taken in order.`
                : null
          return (
            <li key={i} className="bs-card bs-finding" aria-label={`${f.severity}: ${f.what}`}>
              <div className="bs-finding-head">
                <Badge tone={tone[f.severity]}>{f.severity}</Badge>
                <strong>{f.what}</strong>
                {f.decision ? (
                  <Badge tone={f.decision === 'apply' ? 'accent' : 'neutral'}>
                    {f.decision === 'apply' ? 'Will apply' : 'Dismissed'}
                  </Badge>
                ) : null}
              </div>
              <p>
                <span className="muted">Why: </span>
                {f.why}
              </p>
              <p>
                <span className="muted">Fix: </span>
                {f.fix}
              </p>
              {f.decision === null ? (
                <div className="bs-actions">
                  <Button size="sm" disabledReason={busy ?? why} onClick={() => onDecide('dismiss')}>
                    Dismiss
                  </Button>
                  <Button
                    size="sm"
                    variant="primary"
                    disabledReason={busy ?? why}
                    onClick={() => onDecide('apply')}
                  >
                    Apply
                  </Button>
                </div>
              ) : null}
            </li>
          )
        })}
      </ol>
    </section>
  )
}
