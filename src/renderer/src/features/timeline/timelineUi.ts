import { create } from 'zustand'
import { taskRange, type CompareRange } from './compareRange'
import type { TimelineFilter } from './rows'

export type DiffLayout = 'side-by-side' | 'inline'

interface TimelineUi {
  /** Tasks only, or everything (manual, safety and baseline entries too). */
  filter: TimelineFilter
  /** The Compare view's range; null shows the list of snapshots. */
  compare: CompareRange | null
  /** The project the range belongs to: another project's timeline shows its list. */
  compareProject: number | null
  /** Set by a task card: when its post-task snapshot does not exist (yet), compare with the working copy. */
  toWorkingIfMissing: boolean
  /** The changed file whose diff is shown. */
  file: string | null
  layout: DiffLayout
  setFilter(filter: TimelineFilter): void
  openCompare(projectId: number, range: CompareRange): void
  /** The task card's "Compare". */
  openTaskCompare(projectId: number, task: number): void
  setRange(range: CompareRange): void
  setFile(file: string | null): void
  setLayout(layout: DiffLayout): void
  closeCompare(): void
}

/** UI state of the timeline and its Compare view. */
export const useTimelineUi = create<TimelineUi>()((set) => ({
  filter: 'everything',
  compare: null,
  compareProject: null,
  toWorkingIfMissing: false,
  file: null,
  layout: 'inline',
  setFilter: (filter) => set({ filter }),
  openCompare: (compareProject, compare) =>
    set({ compare, compareProject, toWorkingIfMissing: false, file: null }),
  openTaskCompare: (compareProject, task) =>
    set({ compare: taskRange(task), compareProject, toWorkingIfMissing: true, file: null }),
  setRange: (compare) => set({ compare, toWorkingIfMissing: false, file: null }),
  setFile: (file) => set({ file }),
  setLayout: (layout) => set({ layout }),
  closeCompare: () => set({ compare: null, file: null }),
}))
