import { create } from 'zustand'
import type { TimelineFilter } from './rows'

interface TimelineUi {
  /** Tasks only, or everything (manual, safety and baseline entries too). */
  filter: TimelineFilter
  setFilter(filter: TimelineFilter): void
}

/** UI state of the timeline. */
export const useTimelineUi = create<TimelineUi>()((set) => ({
  filter: 'everything',
  setFilter: (filter) => set({ filter }),
}))
