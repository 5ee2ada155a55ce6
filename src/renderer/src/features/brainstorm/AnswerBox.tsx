import { useState, type KeyboardEvent } from 'react'
import { Button } from '../../ui'
import { shortcutLabel } from '../../app/shortcuts'

/** Free text where the question is open: Ctrl/⌘+Enter sends. Disabled (with the reason) while a step runs. */
export function AnswerBox({
  label,
  placeholder,
  busyReason,
  onSend,
  sendLabel = 'Send',
  rows = 3,
}: {
  label: string
  placeholder?: string
  busyReason: string | null
  onSend: (text: string) => void
  sendLabel?: string
  rows?: number
}) {
  const [text, setText] = useState('')
  const send = () => {
    if (busyReason || !text.trim()) return
    onSend(text.trim())
    setText('')
  }
  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
      e.preventDefault()
      send()
    }
  }
  return (
    <div className="bs-answer">
      <textarea
        aria-label={label}
        placeholder={placeholder}
        rows={rows}
        value={text}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={onKeyDown}
      />
      <div className="bs-answer-bar">
        <span className="hint muted">{shortcutLabel('Enter')} sends</span>
        <Button
          variant="primary"
          onClick={send}
          disabledReason={busyReason ?? (text.trim() ? null : 'Write your answer first.')}
        >
          {sendLabel}
        </Button>
      </div>
    </div>
  )
}
