import { useEffect, useState } from 'react'
import { ROADMAP_MAX_LINES, VISION_MAX_LINES } from '../../../../shared/brainstorm'
import { Banner, Button } from '../../ui'
import { useClient } from '../../app/ClientProvider'
import { AnswerBox } from './AnswerBox'
import { ChoiceButtons } from './ChoiceButtons'
import { DocumentView } from './DocumentView'
import { useStep } from './queries'
import { choiceOf, openQuestion, type StepProps } from './types'

/** Both documents as the session holds them, each rendered and raw with its line count. */
export function Drafts({ session }: { session: StepProps['session'] }) {
  const d = session.drafts
  if (!d) return null
  return (
    <div className="bs-docs">
      {(
        [
          ['VISION.md', d.vision, session.rendered?.vision, d.visionLines, VISION_MAX_LINES],
          ['ROADMAP.md', d.roadmap, session.rendered?.roadmap, d.roadmapLines, ROADMAP_MAX_LINES],
        ] as const
      ).map(([name, text, parsed, lines, limit]) => (
        <DocumentView key={name} name={name} text={text} parsed={parsed} lines={lines} limit={limit} />
      ))}
    </div>
  )
}

export function Problems({ problems, title }: { problems: string[]; title: string }) {
  if (!problems.length) return null
  return (
    <Banner tone="error">
      <p>{title}</p>
      <ul aria-label="Problems" className="bs-problems">
        {problems.map((p) => (
          <li key={p}>{p}</li>
        ))}
      </ul>
    </Banner>
  )
}

/** OUTPUT: the drafts for approval, a change request, or (refused twice) the draft to fix by hand. */
export function OutputStep(props: StepProps) {
  const { session, busy, answer } = props
  const drafts = choiceOf(session, 'drafts')
  const failed = choiceOf(session, 'failed')
  const change = openQuestion(session)
  return (
    <div className="bs-output">
      {failed ? (
        <>
          <Problems
            title="The model’s documents failed validation twice; nothing was written."
            problems={session.problems}
          />
          {session.handDraft ? <HandEdit {...props} draft={session.handDraft} /> : null}
          <ChoiceButtons choice={failed} busy={busy} onChoose={answer} hide={['stop', 'edited']} />
        </>
      ) : (
        <Drafts session={session} />
      )}
      {drafts ? <ChoiceButtons choice={drafts} busy={busy} onChoose={answer} /> : null}
      {change ? (
        <AnswerBox label="What should change" busyReason={busy} onSend={answer} sendLabel="Revise" />
      ) : null}
      {!session.drafts && !failed && busy ? (
        <p className="muted" role="status">
          Writing VISION.md and ROADMAP.md from the session…
        </p>
      ) : null}
    </div>
  )
}

/** The refused draft, editable, validated as the user types (the same checks as the model's answer). */
function HandEdit({ projectId, busy, draft }: StepProps & { draft: { vision: string; roadmap: string } }) {
  const client = useClient()
  const step = useStep(projectId)
  const [docs, setDocs] = useState(draft)
  const [check, setCheck] = useState<{
    problems: string[]
    visionLines: number
    roadmapLines: number
  } | null>(null)
  useEffect(() => {
    let live = true
    const timer = setTimeout(() => {
      void client.call('brainstorm.check', docs).then((r) => live && setCheck(r))
    }, 250)
    return () => {
      live = false
      clearTimeout(timer)
    }
  }, [client, docs])
  const valid = check !== null && check.problems.length === 0
  return (
    <section className="bs-hand" aria-label="Fix the draft by hand">
      <h3>Fix the draft by hand</h3>
      <div className="bs-docs">
        {(['vision', 'roadmap'] as const).map((key) => (
          <label key={key} className="bs-field">
            <span>
              {key === 'vision' ? 'VISION.md' : 'ROADMAP.md'}{' '}
              <span className="muted">
                {key === 'vision'
                  ? `${check?.visionLines ?? '…'} / ${VISION_MAX_LINES} lines`
                  : `${check?.roadmapLines ?? '…'} / ${ROADMAP_MAX_LINES} lines`}
              </span>
            </span>
            <textarea
              className="bs-raw-edit mono"
              rows={18}
              value={docs[key]}
              onChange={(e) => setDocs((d) => ({ ...d, [key]: e.target.value }))}
            />
          </label>
        ))}
      </div>
      {check && check.problems.length ? (
        <p className="bs-hand-status">
          Your edit still has {check.problems.length} problem{check.problems.length === 1 ? '' : 's'}:
        </p>
      ) : null}
      {check && check.problems.length ? (
        <ul className="bs-problems" aria-label="Draft problems">
          {check.problems.map((p) => (
            <li key={p}>{p}</li>
          ))}
        </ul>
      ) : null}
      {check && valid ? <p className="muted">Both documents pass.</p> : null}
      <div className="bs-actions">
        <Button
          variant="primary"
          disabledReason={busy ?? (valid ? null : 'Fix the problems listed first.')}
          onClick={() => step.mutate({ call: 'brainstorm.useDraft', input: docs })}
        >
          Use my edited draft
        </Button>
      </div>
    </section>
  )
}
