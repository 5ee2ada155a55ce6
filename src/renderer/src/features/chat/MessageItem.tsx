import { Info, MessageCircleQuestion, Sparkles } from 'lucide-react'
import { memo } from 'react'
import type { ChatMessageDto, UsageDto } from '../../../../shared/api/chat'
import { Markdown } from '../../ui'
import { formatCached, formatCost, formatTokens } from './format'
import { settledEnd } from './LiveText'
import { useLiveAnswers } from './liveAnswers'
import { QueuedCard } from './QueuedCard'
import { TaskCard } from './TaskCard'

/** One entry of the conversation: what the user wrote, a task card, an Ask answer, or a notice. */
export const MessageItem = memo(function MessageItem({
  message,
  projectId,
  answers,
}: {
  message: ChatMessageDto
  projectId: number
  /** A task card's answers to its questions (the messages folded into it). */
  answers?: readonly string[]
}) {
  switch (message.kind) {
    case 'user':
      return (
        <div className="chat-user">
          <p className="chat-bubble">
            {message.mode === 'ask' ? (
              <MessageCircleQuestion size={13} aria-label="Question" className="chat-mode-icon" />
            ) : null}
            {message.text}
          </p>
        </div>
      )
    case 'task':
      if (message.card?.status === 'queued') return <QueuedCard message={message} projectId={projectId} />
      return message.card ? <TaskCard card={message.card} projectId={projectId} answers={answers} /> : null
    case 'answer':
      return (
        <div className="chat-answer">
          <Sparkles size={14} aria-hidden className="chat-answer-icon" />
          {message.error ? (
            <p className="field-error">{message.error}</p>
          ) : message.text ? (
            <div className="chat-answer-body">
              <Markdown className="chat-answer-text" text={message.text} />
              {message.usage ? <AnswerUsage usage={message.usage} /> : null}
            </div>
          ) : (
            <LiveAnswer messageId={message.id} />
          )}
        </div>
      )
    case 'notice':
      return (
        <p className="chat-notice">
          <Info size={13} aria-hidden />
          {message.text}
        </p>
      )
  }
})

/** An answer still being written: subscribes to its own stream only; finished paragraphs as markdown. */
function LiveAnswer({ messageId }: { messageId: number }) {
  const text = useLiveAnswers((s) => s.text[messageId] ?? '')
  if (!text) return <p className="chat-answer-text live">Thinking…</p>
  const cut = settledEnd(text)
  const tail = text.slice(cut).replace(/^\n+/, '')
  return (
    <div className="chat-answer-text live">
      {cut ? <Markdown text={text.slice(0, cut)} /> : null}
      {tail ? <p>{tail}</p> : null}
    </div>
  )
}

/** What the answer cost, as a task card says it: tokens and dollars, or "price unknown". */
function AnswerUsage({ usage }: { usage: UsageDto }) {
  const tokens = formatTokens(usage.inputTokens + usage.outputTokens)
  const cost = usage.priced ? formatCost({ ...usage }) : 'price unknown'
  const cached = formatCached(usage)
  return (
    <p className="chat-answer-usage" data-testid="answer-usage">
      {tokens} tokens{cached ? ` (${cached})` : ''} · {cost} · {usage.calls} model call
      {usage.calls === 1 ? '' : 's'}
    </p>
  )
}
