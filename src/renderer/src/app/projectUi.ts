import { create } from 'zustand'
import { readStored, writeStored } from './localStore'

const COLLAPSED_KEY = 'ralph.sidePanel.collapsed'

const readCollapsed = (): boolean => readStored(COLLAPSED_KEY) === '1'

interface ProjectUi {
  /** The side panel (Timeline, Plan, Queue) is folded away; remembered across reloads. */
  sidePanelCollapsed: boolean
  setSidePanelCollapsed(collapsed: boolean): void
  toggleSidePanel(): void
}

/** UI state of the project screen. Which tab is open lives in the URL (`?panel=`), not here. */
export const useProjectUi = create<ProjectUi>()((set, get) => ({
  sidePanelCollapsed: readCollapsed(),
  setSidePanelCollapsed(collapsed) {
    if (collapsed === get().sidePanelCollapsed) return
    writeStored(COLLAPSED_KEY, collapsed ? '1' : '0') // when not remembered, still applied
    set({ sidePanelCollapsed: collapsed })
  },
  toggleSidePanel: () => get().setSidePanelCollapsed(!get().sidePanelCollapsed),
}))
