import { Info, MessageCircleQuestion, Sparkles } from 'lucide-react'
import { memo } from 'react'
import type { ChatMessageDto } from '../../../../shared/api/chat'
import { useLiveAnswers } from './liveAnswers'
import { QueuedCard } from './QueuedCard'
import { TaskCard } from './TaskCard'

/** One entry of the conversation: what the user wrote, a task card, an Ask answer, or a notice. */
export const MessageItem = memo(function MessageItem({
  message,
  projectId,
}: {
  message: ChatMessageDto
  projectId: number
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
      return message.card ? <TaskCard card={message.card} projectId={projectId} /> : null
    case 'answer':
      return (
        <div className="chat-answer">
          <Sparkles size={14} aria-hidden className="chat-answer-icon" />
          {message.error ? (
            <p className="field-error">{message.error}</p>
          ) : message.text ? (
            <p className="chat-answer-text">{message.text}</p>
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

/** An answer still being written: subscribes to its own stream only. */
function LiveAnswer({ messageId }: { messageId: number }) {
  const text = useLiveAnswers((s) => s.text[messageId] ?? '')
  return <p className="chat-answer-text live">{text || 'Thinking…'}</p>
}
