import { create } from 'zustand'

const COLLAPSED_KEY = 'ralph.sidePanel.collapsed'

const readCollapsed = (): boolean => {
  try {
    return localStorage.getItem(COLLAPSED_KEY) === '1'
  } catch {
    return false
  }
}

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
    try {
      localStorage.setItem(COLLAPSED_KEY, collapsed ? '1' : '0')
    } catch {
      // not remembered, still applied
    }
    set({ sidePanelCollapsed: collapsed })
  },
  toggleSidePanel: () => get().setSidePanelCollapsed(!get().sidePanelCollapsed),
}))
