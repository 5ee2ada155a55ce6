import { create } from 'zustand'
import type { ChatMode } from '../../../../shared/api/chat'
import { readStoredByProject, writeStoredByProject } from '../../app/localStore'

/**
 * The composers' unsent text per project, kept in localStorage: a reload, or a web host restart and its new
 * address (the same origin when the port stays), finds it again.
 */
const DRAFTS_KEY = 'ralph.chat.drafts'

const readDrafts = (): Record<number, string> =>
  readStoredByProject(DRAFTS_KEY, (value) => (typeof value === 'string' && value ? value : undefined))

/** Drafts as stored: empty ones dropped, so a sent message leaves nothing behind. */
export function storableDrafts(drafts: Record<number, string>): Record<number, string> {
  return Object.fromEntries(Object.entries(drafts).filter(([, text]) => text !== ''))
}

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

/** UI state of the chat. Messages themselves are server state (queries.ts); only the drafts outlive the window. */
export const useChatUi = create<ChatUi>()((set) => ({
  mode: {},
  draft: readDrafts(),
  viewing: {},
  open: {},
  focus: {},
  keptQueued: {},
  focusComposer: (projectId) =>
    set((s) => ({ focus: { ...s.focus, [projectId]: (s.focus[projectId] ?? 0) + 1 } })),
  keepQueued: (projectId, task) => set((s) => ({ keptQueued: { ...s.keptQueued, [projectId]: task } })),
  setOpen: (key, open) => set((s) => ({ open: { ...s.open, [key]: open } })),
  setMode: (projectId, mode) => set((s) => ({ mode: { ...s.mode, [projectId]: mode } })),
  setDraft: (projectId, text) =>
    set((s) => {
      const draft = { ...s.draft, [projectId]: text }
      writeStoredByProject(DRAFTS_KEY, storableDrafts(draft))
      return { draft }
    }),
  view: (projectId, conversationId) =>
    set((s) => ({ viewing: { ...s.viewing, [projectId]: conversationId } })),
}))
