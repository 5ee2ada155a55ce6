import { create } from 'zustand'
import { snapshotTags } from '../../../../shared/api/snapshots'

export type PlanView = 'editor' | 'diff'
export type DiffMode = 'structure' | 'text'
/** A snapshot tag, or `working` for the working copy. */
export interface DiffRange {
  from: string
  to: string
}

interface PlanUi {
  view: PlanView
  /** The plan fills the workspace (the chat steps aside) instead of the side panel. */
  fullWidth: boolean
  /** The range asked for (a task card's pre → post); null: the core's default, the last task's. */
  range: DiffRange | null
  diffMode: DiffMode
  /** A line of the text diff to reveal after a click in the structural view; `side` picks the version. */
  reveal: { line: number; side: 'before' | 'after'; seq: number } | null
  setView(view: PlanView): void
  setFullWidth(on: boolean): void
  setRange(range: DiffRange | null): void
  setDiffMode(mode: DiffMode): void
  revealInDiff(line: number, side: 'before' | 'after'): void
  /** The task card's "Review plan changes". */
  openTaskDiff(task: number, post: boolean): void
}

/** UI state of the plan editor and its diff review. */
export const usePlanUi = create<PlanUi>()((set, get) => ({
  view: 'editor',
  fullWidth: false,
  range: null,
  diffMode: 'structure',
  reveal: null,
  setView: (view) => set({ view }),
  setFullWidth: (fullWidth) => set({ fullWidth }),
  setRange: (range) => set({ range }),
  setDiffMode: (diffMode) => set({ diffMode }),
  revealInDiff: (line, side) =>
    set({ diffMode: 'text', reveal: { line, side, seq: (get().reveal?.seq ?? 0) + 1 } }),
  openTaskDiff: (task, post) =>
    set({
      view: 'diff',
      diffMode: 'structure',
      range: { from: snapshotTags.taskPre(task), to: post ? snapshotTags.taskPost(task) : 'working' },
    }),
}))
