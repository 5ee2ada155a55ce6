import { Check, Pencil } from 'lucide-react'
import { useState } from 'react'
import type { BrainstormStatements } from '../../../../shared/brainstorm'
import { Button, cx } from '../../ui'
import { AnswerBox } from './AnswerBox'
import { Exchange } from './Exchange'
import { openQuestion, type StepProps } from './types'

type Key = keyof BrainstormStatements
export const cards: { key: Key; title: string }[] = [
  { key: 'vision', title: 'Vision' },
  { key: 'successTruths', title: 'Success truths' },
  { key: 'nonGoals', title: 'Non-goals' },
  { key: 'constraints', title: 'Constraints' },
  { key: 'risks', title: 'Key risks' },
  { key: 'openQuestions', title: 'Open questions' },
]

const asText = (v: string | string[]) => (Array.isArray(v) ? v.join('\n') : v)
const fromText = (key: Key, text: string) =>
  key === 'vision'
    ? text.trim()
    : text
        .split('\n')
        .map((l) => l.replace(/^\s*[-*•]\s*/, '').trim())
        .filter(Boolean)

/**
 * CRYSTALLIZE: the six statements as cards, each approved or edited; all six approved go on to OUTPUT. Keyed on
 * the session's statements by its parent, so a new version from the facilitator is approved afresh.
 */
export function CrystallizeStep({ session, busy, answer }: StepProps) {
  const [statements, setStatements] = useState(session.statements)
  const [approved, setApproved] = useState<Set<Key>>(new Set())
  const open = openQuestion(session)
  const missing = cards.filter((c) => !approved.has(c.key))

  return (
    <div className="bs-crystallize">
      <Exchange messages={session.messages} phases={['crystallize']} />
      {statements ? (
        <>
          <div className="bs-statements">
            {cards.map((c) => (
              <StatementCard
                key={c.key}
                title={c.title}
                value={statements[c.key]}
                approved={approved.has(c.key)}
                busy={busy}
                onApprove={() => setApproved((a) => new Set(a).add(c.key))}
                onSave={(text) => {
                  setStatements((s) => (s ? { ...s, [c.key]: fromText(c.key, text) } : s))
                  setApproved((a) => new Set(a).add(c.key))
                }}
              />
            ))}
          </div>
          {open ? (
            <div className="bs-actions">
              <Button
                variant="primary"
                disabledReason={
                  busy ??
                  (missing.length ? `Approve or edit ${missing.map((m) => m.title).join(', ')} first.` : null)
                }
                onClick={() =>
                  answer('I approve all six statements as they stand now (my edits included).', {
                    statements,
                  })
                }
              >
                Continue to the documents
              </Button>
            </div>
          ) : null}
        </>
      ) : (
        <p className="muted">The six statements appear here as cards once the facilitator drafts them.</p>
      )}
      {open ? <AnswerBox label="Your answer" busyReason={busy} onSend={(t) => answer(t)} /> : null}
    </div>
  )
}

function StatementCard({
  title,
  value,
  approved,
  busy,
  onApprove,
  onSave,
}: {
  title: string
  value: string | string[]
  approved: boolean
  busy: string | null
  onApprove: () => void
  onSave: (text: string) => void
}) {
  const [editing, setEditing] = useState<string | null>(null)
  const empty = Array.isArray(value) ? value.length === 0 : !value
  return (
    <article className={cx('bs-card bs-statement', approved && 'is-approved')} aria-label={title}>
      <div className="bs-statement-head">
        <h4>{title}</h4>
        {approved ? (
          <span className="badge tone-ok">
            <Check size={12} aria-hidden /> Approved
          </span>
        ) : null}
      </div>
      {editing !== null ? (
        <>
          <textarea
            aria-label={`Edit ${title}`}
            rows={Array.isArray(value) ? Math.max(3, value.length + 1) : 4}
            value={editing}
            onChange={(e) => setEditing(e.target.value)}
          />
          <p className="muted bs-field-hint">{Array.isArray(value) ? 'One item per line.' : ''}</p>
          <div className="bs-actions">
            <Button size="sm" variant="ghost" onClick={() => setEditing(null)}>
              Cancel
            </Button>
            <Button
              size="sm"
              variant="primary"
              onClick={() => {
                onSave(editing)
                setEditing(null)
              }}
            >
              Save
            </Button>
          </div>
        </>
      ) : (
        <>
          {empty ? (
            <p className="muted">Nothing yet.</p>
          ) : Array.isArray(value) ? (
            <ul>
              {value.map((v, i) => (
                <li key={i}>{v}</li>
              ))}
            </ul>
          ) : (
            <p>{value}</p>
          )}
          <div className="bs-actions">
            <Button
              size="sm"
              variant="ghost"
              icon={<Pencil size={14} aria-hidden />}
              disabledReason={busy}
              onClick={() => setEditing(asText(value))}
              aria-label={`Edit ${title}`}
            >
              Edit
            </Button>
            {approved ? null : (
              <Button size="sm" disabledReason={busy} onClick={onApprove} aria-label={`Approve ${title}`}>
                Approve
              </Button>
            )}
          </div>
        </>
      )}
    </article>
  )
}
