import { create } from 'zustand'
import { readStored, writeStored } from '../../app/localStore'
import { taskRange, type CompareRange } from './compareRange'
import type { TimelineFilter } from './rows'

export type DiffLayout = 'side-by-side' | 'inline'

/** Where the full-size Compare's layout is remembered (the side panel always opens inline: it is too narrow). */
export const FULL_LAYOUT_KEY = 'ralph.compare.fullLayout'

const storedFullLayout = (): DiffLayout =>
  readStored(FULL_LAYOUT_KEY) === 'inline' ? 'inline' : 'side-by-side'

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
  /** The side panel's diff layout: inline unless changed for this session. */
  layout: DiffLayout
  /** Compare is open full size (a large dialog over the app). */
  fullSize: boolean
  /** The full-size Compare's layout, remembered in localStorage (side by side until changed). */
  fullLayout: DiffLayout
  setFilter(filter: TimelineFilter): void
  openCompare(projectId: number, range: CompareRange): void
  /** The task card's "Compare". */
  openTaskCompare(projectId: number, task: number): void
  /** A task's changed file, its diff full size (the task card's changed-file rows). */
  openTaskFile(projectId: number, task: number, path: string): void
  setRange(range: CompareRange): void
  setFile(file: string | null): void
  setLayout(layout: DiffLayout): void
  setFullLayout(layout: DiffLayout): void
  setFullSize(fullSize: boolean): void
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
  fullSize: false,
  fullLayout: storedFullLayout(),
  setFilter: (filter) => set({ filter }),
  openCompare: (compareProject, compare) =>
    set({ compare, compareProject, toWorkingIfMissing: false, file: null }),
  openTaskCompare: (compareProject, task) =>
    set({ compare: taskRange(task), compareProject, toWorkingIfMissing: true, file: null }),
  openTaskFile: (compareProject, task, file) =>
    set({ compare: taskRange(task), compareProject, toWorkingIfMissing: true, file, fullSize: true }),
  setRange: (compare) => set({ compare, toWorkingIfMissing: false, file: null }),
  setFile: (file) => set({ file }),
  setLayout: (layout) => set({ layout }),
  setFullLayout: (fullLayout) => {
    writeStored(FULL_LAYOUT_KEY, fullLayout)
    set({ fullLayout })
  },
  setFullSize: (fullSize) => set({ fullSize }),
  closeCompare: () => set({ compare: null, file: null, fullSize: false }),
}))
