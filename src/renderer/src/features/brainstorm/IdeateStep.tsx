import { Button } from '../../ui'
import { AnswerBox } from './AnswerBox'
import { ChoiceButtons } from './ChoiceButtons'
import { Counters } from './Counters'
import { Exchange } from './Exchange'
import { IdeasLedger } from './IdeasLedger'
import { choiceOf, openQuestion, type StepProps } from './types'

/** What the harness appended to the facilitator's words (deltas, the energy question), shown under them. */
function harnessNote(text: string, lastSay: string | undefined): string | null {
  if (!lastSay || !text.startsWith(lastSay)) return null
  return text.slice(lastSay.length).trim() || null
}

/** IDEATE: the exchange beside the live ledger and its counters; the energy check is three buttons. */
export function IdeateStep({ projectId, session, busy, answer }: StepProps) {
  const energy = choiceOf(session, 'energy')
  const open = openQuestion(session)
  const lastSay = session.messages.filter((m) => m.role === 'facilitator').at(-1)?.text
  const note = session.pending ? harnessNote(session.pending.text, lastSay) : null
  return (
    <div className="bs-split bs-ideate">
      <div className="bs-main-col">
        <Exchange messages={session.messages} phases={['ideate']} />
        {note ? (
          <p className="bs-note" role="status">
            {note}
          </p>
        ) : null}
        {energy ? <ChoiceButtons choice={energy} busy={busy} onChoose={answer} /> : null}
        {open ? (
          <>
            <AnswerBox
              label="Your ideas"
              placeholder="Say anything that comes to mind; each idea you state is kept in your words."
              busyReason={busy}
              onSend={answer}
            />
            <div className="bs-actions bs-actions-quiet">
              <Button
                variant="ghost"
                size="sm"
                disabledReason={busy}
                onClick={() => answer('/organize')}
                title="Stop generating and start grouping the ideas into themes"
              >
                Start organizing
              </Button>
            </div>
          </>
        ) : null}
      </div>
      <aside className="bs-side-col bs-ledger-col" aria-label="Ledger">
        <Counters session={session} />
        <IdeasLedger projectId={projectId} />
      </aside>
    </div>
  )
}
