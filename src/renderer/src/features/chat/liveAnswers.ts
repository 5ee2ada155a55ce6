import { create } from 'zustand'
import type { Client } from '../../api'

interface LiveAnswers {
  /** The streamed text of Ask answers still being written, by message id. */
  text: Record<number, string>
  append(messageId: number, text: string): void
}

const MAX_CHARS = 100_000

/** Ask answers as they stream; each answer's line subscribes to its own entry, so a token re-renders one line. */
export const useLiveAnswers = create<LiveAnswers>()((set) => ({
  text: {},
  append: (messageId, text) =>
    set((s) => ({ text: { ...s.text, [messageId]: ((s.text[messageId] ?? '') + text).slice(-MAX_CHARS) } })),
}))

export function subscribeChatDeltas(client: Client): () => void {
  return client.on('chat.delta', ({ messageId, text }) => useLiveAnswers.getState().append(messageId, text))
}
