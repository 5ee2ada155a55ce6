import { useEffect, useRef } from 'react'
import type { BrainstormDetail } from '../../../../shared/api/brainstorm'
import { cx } from '../../ui'

type Message = BrainstormDetail['messages'][number]

/**
 * The facilitator's and the user's words in the given phases, oldest first. It follows new messages only when
 * the reader is already at the bottom (DESIGN.md §15).
 */
export function Exchange({
  messages,
  phases,
  label = 'Exchange',
  empty,
}: {
  messages: Message[]
  phases: string[]
  label?: string
  empty?: string
}) {
  const shown = messages.filter((m) => phases.includes(m.phase))
  const box = useRef<HTMLDivElement>(null)
  const atBottom = useRef(true)
  useEffect(() => {
    const el = box.current
    if (el && atBottom.current) el.scrollTop = el.scrollHeight
  }, [shown.length])
  return (
    <div
      ref={box}
      className="bs-exchange"
      role="log"
      aria-label={label}
      onScroll={(e) => {
        const el = e.currentTarget
        atBottom.current = el.scrollHeight - el.scrollTop - el.clientHeight < 24
      }}
    >
      {shown.length === 0 ? <p className="muted">{empty ?? 'The facilitator speaks first.'}</p> : null}
      {shown.map((m, i) => (
        <div key={i} className={cx('bs-msg', m.role === 'user' ? 'bs-msg-user' : 'bs-msg-facilitator')}>
          <span className="bs-msg-who">{m.role === 'user' ? 'You' : 'Facilitator'}</span>
          <p className="bs-msg-text">{m.text}</p>
        </div>
      ))}
    </div>
  )
}
