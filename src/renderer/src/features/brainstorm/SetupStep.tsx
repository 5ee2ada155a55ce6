import { AnswerBox } from './AnswerBox'
import { ChoiceButtons } from './ChoiceButtons'
import { Exchange } from './Exchange'
import { choiceOf, openQuestion, type StepProps } from './types'

/** Seed 004's SETUP questions: the facilitator asks only what the project's own files do not answer. */
const questions = [
  'What are we building? An elevator pitch, rough is fine.',
  'Who needs this? The primary user.',
  'What is the pain? Why does it need to exist now?',
  'Any constraints: time, money, tech, legal, platform?',
  'What does success look like in 90 days? Three to seven measurable outcomes.',
]

export function SetupStep({ session, busy, answer }: StepProps) {
  const confirm = choiceOf(session, 'confirm-pitch')
  const open = openQuestion(session)
  return (
    <div className="bs-split">
      <div className="bs-main-col">
        <Exchange messages={session.messages} phases={['setup']} />
        {confirm && session.pitch ? (
          <section className="bs-card bs-pitch" aria-label="Pitch">
            <h3>Is this the pitch?</h3>
            <p className="bs-pitch-text">{session.pitch}</p>
            <ChoiceButtons choice={confirm} busy={busy} onChoose={answer} />
          </section>
        ) : null}
        {open ? <AnswerBox label="Your answer" busyReason={busy} onSend={answer} /> : null}
      </div>
      <aside className="bs-side-col bs-card" aria-label="What setup asks">
        <h3>What setup asks</h3>
        <ol className="bs-questions">
          {questions.map((q) => (
            <li key={q}>{q}</li>
          ))}
        </ol>
        <p className="muted">Then the facilitator sums it up in one sentence for you to confirm.</p>
      </aside>
    </div>
  )
}
