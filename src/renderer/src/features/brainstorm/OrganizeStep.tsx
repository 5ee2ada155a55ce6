import { useState } from 'react'
import { moscow, type BrainstormTheme, type Moscow } from '../../../../shared/brainstorm'
import { Button } from '../../ui'
import { AnswerBox } from './AnswerBox'
import { Exchange } from './Exchange'
import { openQuestion, type StepProps } from './types'

export const moscowNames: Record<Moscow, string> = {
  must: 'Must-have',
  should: 'Should-have',
  could: 'Could-have',
  wont: "Won't-have",
}
const columns: (Moscow | null)[] = [...moscow, null]
const columnName = (p: Moscow | null) => (p ? moscowNames[p] : 'Not prioritized')

/** The board as the user's words for the facilitator (the same board is saved with the answer). */
export function boardText(themes: BrainstormTheme[]): string {
  const lines = columns
    .map((p) => {
      const inColumn = themes.filter((t) => t.priority === p)
      if (!inColumn.length) return null
      const names = inColumn.map((t) => (t.ideas.length ? `${t.name} (${t.ideas.join(', ')})` : t.name))
      return `${columnName(p)}: ${names.join('; ')}`
    })
    .filter(Boolean)
  return `Here is my MoSCoW board:\n${lines.join('\n')}`
}

/**
 * ORGANIZE: the facilitator's themes as cards holding idea ids, on a MoSCoW board the user rearranges. Keyed on
 * the session's themes by its parent, so the facilitator's next version replaces the board.
 */
export function OrganizeStep({ session, busy, answer }: StepProps) {
  const [themes, setThemes] = useState(session.themes)
  const dirty = JSON.stringify(themes) !== JSON.stringify(session.themes)
  const open = openQuestion(session)
  const move = (index: number, priority: Moscow | null) =>
    setThemes((ts) => ts.map((t, i) => (i === index ? { ...t, priority } : t)))

  return (
    <div className="bs-organize">
      <Exchange messages={session.messages} phases={['organize']} />
      {themes.length ? (
        <section aria-label="MoSCoW board" className="bs-board">
          {columns.map((p) => (
            <div key={p ?? 'none'} className="bs-column" role="group" aria-label={columnName(p)}>
              <h4>{columnName(p)}</h4>
              {themes.map((t, i) =>
                t.priority === p ? (
                  <article key={`${t.name}-${i}`} className="bs-card bs-theme" aria-label={t.name}>
                    <h5>{t.name}</h5>
                    <p className="bs-theme-ideas mono">{t.ideas.join(' ') || 'no ideas yet'}</p>
                    {t.risk ? <p className="muted bs-theme-risk">Risk: {t.risk}</p> : null}
                    <label className="bs-theme-move">
                      <span className="visually-hidden">Priority of {t.name}</span>
                      <select
                        value={t.priority ?? ''}
                        onChange={(e) => move(i, (e.target.value || null) as Moscow | null)}
                      >
                        {columns.map((c) => (
                          <option key={c ?? 'none'} value={c ?? ''}>
                            {columnName(c)}
                          </option>
                        ))}
                      </select>
                    </label>
                  </article>
                ) : null,
              )}
            </div>
          ))}
        </section>
      ) : (
        <p className="muted">The themes appear here as cards once the facilitator proposes them.</p>
      )}
      {open ? (
        <>
          {themes.length ? (
            <div className="bs-actions">
              <Button
                variant="primary"
                disabledReason={busy}
                onClick={() => answer(boardText(themes), { themes })}
              >
                {dirty ? 'Send my board' : 'The board is right'}
              </Button>
            </div>
          ) : null}
          <AnswerBox
            label="Your answer"
            placeholder="Rename, merge or move ideas; answer the facilitator's question."
            busyReason={busy}
            onSend={(text) => answer(text, dirty ? { themes } : undefined)}
          />
        </>
      ) : null}
    </div>
  )
}
