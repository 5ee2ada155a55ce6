import { Sparkles, Zap } from 'lucide-react'
import type { QuickForm as QuickFormValues } from '../../../../shared/api/brainstorm'
import { Button } from '../../ui'
import { QuickForm } from './QuickForm'

/** No session yet (or the last one is done): a guided session, or quick mode's form. */
export function StartScreen({
  busy,
  onStart,
  onQuick,
  existing,
}: {
  busy: string | null
  onStart: () => void
  onQuick: (form: QuickFormValues) => void
  existing: boolean
}) {
  return (
    <div className="bs-start">
      <section className="bs-card" aria-labelledby="bs-guided">
        <h2 id="bs-guided">
          <Sparkles size={16} aria-hidden /> Guided brainstorm
        </h2>
        <p>
          Seven phases, 20 to 60 minutes: the facilitator asks what you are building, helps you pick a way to
          generate ideas, draws 50 or more ideas out of you with scheduled pivots and challenges, then
          organizes and crystallizes them into <code>VISION.md</code> and <code>ROADMAP.md</code>, and reviews
          both adversarially before anything is written.
        </p>
        {existing ? (
          <p className="muted">
            This project already has a VISION.md or ROADMAP.md: you will choose Update or New draft before
            anything is written.
          </p>
        ) : null}
        <div className="bs-actions">
          <Button variant="primary" disabledReason={busy} onClick={onStart}>
            Start the brainstorm
          </Button>
        </div>
      </section>
      <section className="bs-card" aria-labelledby="bs-quick">
        <h2 id="bs-quick">
          <Zap size={16} aria-hidden /> Quick mode
        </h2>
        <p className="muted">
          You already know what you want: five answers, then the documents and the review.
        </p>
        <QuickForm busy={busy} onSubmit={onQuick} />
      </section>
    </div>
  )
}
