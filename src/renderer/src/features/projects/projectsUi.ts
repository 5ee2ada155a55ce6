import { create } from 'zustand'

interface ProjectsUi {
  /** Ctrl/⌘+O asked for a folder; the projects page answers it when it is (or next gets) mounted. */
  openFolderRequested: boolean
  requestOpenFolder(): void
  /** True once per request. */
  takeOpenFolderRequest(): boolean
}

/** UI state of the projects feature. */
export const useProjectsUi = create<ProjectsUi>()((set, get) => ({
  openFolderRequested: false,
  requestOpenFolder: () => set({ openFolderRequested: true }),
  takeOpenFolderRequest() {
    if (!get().openFolderRequested) return false
    set({ openFolderRequested: false })
    return true
  },
}))
