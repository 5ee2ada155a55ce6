import type { ChatMessageDto, ChatMode, PendingQuestionDto } from '../../../../shared/api/chat'
import { MESSAGE_MAX_CHARS } from '../../../../shared/api/chat'

/** What the next message will do, as the composer's label line and its placeholder say it. */
export interface ComposerIntent {
  kind: 'ask' | 'answer' | 'queue' | 'build' | 'new'
  label: string
  detail: string
  placeholder: string
}

export function composerIntent({
  mode,
  pending,
  running,
  runningTask,
  building,
}: {
  mode: ChatMode
  pending: PendingQuestionDto | null
  running: boolean
  runningTask: number | null
  building: boolean
}): ComposerIntent {
  if (mode === 'ask') {
    return {
      kind: 'ask',
      label: 'Ask a question (changes nothing)',
      detail: 'Ralph answers from the project’s files and changes nothing.',
      placeholder: 'Ask about the project…',
    }
  }
  if (building) {
    return {
      kind: 'build',
      label: 'New task, after the build',
      detail:
        'A build is running: a Task message can’t start until it ends or you stop it. Ask mode still answers.',
      placeholder: 'Describe what Ralph should do…',
    }
  }
  if (running) {
    return {
      kind: 'queue',
      label: runningTask === null ? 'Queued after the running task' : `Queued after task ${runningTask}`,
      detail: 'A task is running: a message sent now waits in the chat and starts when it ends.',
      placeholder: 'Describe the next task…',
    }
  }
  if (pending) {
    const about = pending.title ?? pending.question ?? `task ${pending.task}`
    return {
      kind: 'answer',
      label: `Answer Ralph’s question about ${about}`,
      detail: `Your next message answers task ${pending.task}’s question and continues it.`,
      placeholder: `Answer Ralph’s question to continue task ${pending.task}…`,
    }
  }
  return {
    kind: 'new',
    label: 'New task',
    detail: 'Ralph changes the project, with a snapshot before and after.',
    placeholder: 'Describe what Ralph should do…',
  }
}

/**
 * The answers the waiting question names (its card's last question's options), for the composer's quick replies;
 * none when its card is not in this conversation or the question named none.
 */
export function pendingReplies(
  messages: readonly ChatMessageDto[],
  pending: PendingQuestionDto | null,
): string[] {
  if (!pending) return []
  const card = messages.find((m) => m.kind === 'task' && m.card?.task === pending.task)?.card
  if (card?.status !== 'waiting') return []
  return card.questions?.at(-1)?.options ?? []
}

/** Counting starts near the limit: 90% of it. */
const COUNT_FROM = Math.floor(MESSAGE_MAX_CHARS * 0.9)

/** The length counter near and past the limit, and why Send is off past it; null well under it. */
export function lengthCheck(text: string): { count: string; over: number; reason: string | null } | null {
  const length = text.trim().length
  if (length < COUNT_FROM) return null
  const over = length - MESSAGE_MAX_CHARS
  const fmt = (n: number) => n.toLocaleString('en')
  return {
    count: `${fmt(length)} / ${fmt(MESSAGE_MAX_CHARS)} characters${over > 0 ? ` · ${fmt(over)} over the limit` : ''}`,
    over: Math.max(0, over),
    reason:
      over > 0
        ? `This message is ${fmt(over)} characters over the limit of ${fmt(MESSAGE_MAX_CHARS)}: shorten it to send.`
        : null,
  }
}
