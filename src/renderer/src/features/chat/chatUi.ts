import { create } from 'zustand'
import type { ChatMode } from '../../../../shared/api/chat'

interface ChatUi {
  /** Per project: the composer's mode, its unsent text, and the past conversation being read (null: the current one). */
  mode: Record<number, ChatMode>
  draft: Record<number, string>
  viewing: Record<number, number | null>
  /**
   * What the reader opened or closed on the cards (iterations, one iteration, one tool call), by a key such as
   * `run:12` or `run:12:it:3`: kept here so a card scrolled out of the virtualized list and back keeps its state.
   */
  open: Record<string, boolean>
  /** Bumped to put the caret in the project's message box (Answer, Edit and resend). */
  focus: Record<number, number>
  /** The stopped task whose queued follow-ups the user chose to keep queued: its prompt stays closed. */
  keptQueued: Record<number, number>
  focusComposer(projectId: number): void
  keepQueued(projectId: number, task: number): void
  setOpen(key: string, open: boolean): void
  setMode(projectId: number, mode: ChatMode): void
  setDraft(projectId: number, text: string): void
  view(projectId: number, conversationId: number | null): void
}

/** UI state of the chat. Messages themselves are server state (queries.ts); nothing here outlives the window. */
export const useChatUi = create<ChatUi>()((set) => ({
  mode: {},
  draft: {},
  viewing: {},
  open: {},
  focus: {},
  keptQueued: {},
  focusComposer: (projectId) =>
    set((s) => ({ focus: { ...s.focus, [projectId]: (s.focus[projectId] ?? 0) + 1 } })),
  keepQueued: (projectId, task) => set((s) => ({ keptQueued: { ...s.keptQueued, [projectId]: task } })),
  setOpen: (key, open) => set((s) => ({ open: { ...s.open, [key]: open } })),
  setMode: (projectId, mode) => set((s) => ({ mode: { ...s.mode, [projectId]: mode } })),
  setDraft: (projectId, text) => set((s) => ({ draft: { ...s.draft, [projectId]: text } })),
  view: (projectId, conversationId) =>
    set((s) => ({ viewing: { ...s.viewing, [projectId]: conversationId } })),
}))
