import { Button } from '../../ui'
import { Drafts } from './OutputStep'
import { choiceOf, type StepProps } from './types'

/** DONE: what was written, the work-queue offer (only for a roadmap now at ROADMAP.md), a new session. */
export function DoneStep({
  session,
  busy,
  answer,
  notice,
  onNew,
}: StepProps & { notice: string | null; onNew: () => void }) {
  const queue = choiceOf(session, 'queue')
  const roadmapWritten = session.written.includes('ROADMAP.md')
  return (
    <div className="bs-done">
      <section className="bs-card" aria-label="Written">
        <h3>The brainstorm is done</h3>
        <p className="muted">Written at the project root:</p>
        <ul className="bs-written">
          {session.written.map((f) => (
            <li key={f} className="mono">
              {f}
            </li>
          ))}
        </ul>
        {notice ? (
          <p role="status" className="bs-note">
            {notice}
          </p>
        ) : null}
        <div className="bs-actions">
          {queue ? (
            <>
              <Button variant="primary" disabledReason={busy} onClick={() => answer('create')}>
                Create the work queue from this roadmap
              </Button>
              <Button disabledReason={busy} onClick={() => answer('later')}>
                Not now
              </Button>
            </>
          ) : !notice ? (
            <Button
              disabledReason={
                roadmapWritten
                  ? 'The work-queue offer was answered already.'
                  : 'Only a roadmap written as ROADMAP.md seeds the queue; merge your draft into it first.'
              }
            >
              Create the work queue from this roadmap
            </Button>
          ) : null}
          <Button variant="ghost" disabledReason={busy} onClick={onNew}>
            Start a new brainstorm
          </Button>
        </div>
      </section>
      <Drafts session={session} />
    </div>
  )
}
