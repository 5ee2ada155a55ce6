import type { ChatMessageDto } from '../../../../shared/api/chat'

/** The conversation as the log shows it: answers to a task's questions folded into that task's card. */
export interface FoldedConversation {
  /** Oldest first, without the messages that answered a question (their card shows them). */
  items: ChatMessageDto[]
  /** Each card's answers, oldest first, by the card message's id. */
  answers: ReadonlyMap<number, readonly string[]>
}

const NONE: readonly string[] = []

/**
 * A Task message that starts no card of its own (the next message is not a task card) answered the question of
 * the card before it: the core continues that task on the same card (issue 37). It is shown on that card, under
 * the question, instead of below the finished card. `items` is oldest first; an answer whose card is on an older
 * page stays a message of its own.
 */
export function foldAnswers(items: readonly ChatMessageDto[]): FoldedConversation {
  const answers = new Map<number, string[]>()
  const kept: ChatMessageDto[] = []
  let card: ChatMessageDto | null = null
  items.forEach((m, i) => {
    if (m.kind === 'task' && m.card && m.card.status !== 'queued') card = m
    const next = items[i + 1]
    const answer = m.kind === 'user' && m.mode === 'task' && card !== null && next?.kind !== 'task'
    if (answer) {
      const list = answers.get(card!.id) ?? []
      list.push(m.text)
      answers.set(card!.id, list)
    } else kept.push(m)
  })
  return { items: kept, answers }
}

/** The answers of one card, or a shared empty list (stable for memoized rows). */
export const answersOf = (folded: FoldedConversation, id: number): readonly string[] =>
  folded.answers.get(id) ?? NONE
