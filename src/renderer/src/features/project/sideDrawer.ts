import { create } from 'zustand'
import { useProjectUi } from '../../app/projectUi'

/**
 * Narrower than this (issue 37: at 1024×700 the chat kept about 220 px), the side panel does not share the width:
 * it is a drawer over the chat's right side, closed until asked for, so the conversation gets the whole column.
 */
export const DRAWER_MAX_PX = 1199
export const DRAWER_QUERY = `(max-width: ${DRAWER_MAX_PX}px)`

export const isDrawerWindow = (): boolean => window.matchMedia?.(DRAWER_QUERY).matches ?? false

interface SideDrawer {
  /** The drawer is open over the chat (a small window only; not remembered: a reload starts with the chat). */
  open: boolean
  /** Opened from the keyboard or the header's button: focus moves into it. */
  takeFocus: boolean
  setOpen(open: boolean, takeFocus?: boolean): void
}

export const useSideDrawer = create<SideDrawer>()((set) => ({
  open: false,
  takeFocus: false,
  setOpen: (open, takeFocus = false) => set({ open, takeFocus: open && takeFocus }),
}))

/**
 * Show or hide the side panel (Ctrl/⌘+B and the header's button): the drawer in a small window, else the split's
 * panel (whose folded state is remembered).
 */
export function toggleSidePanel(): void {
  if (isDrawerWindow()) {
    const drawer = useSideDrawer.getState()
    drawer.setOpen(!drawer.open, true)
  } else {
    useProjectUi.getState().toggleSidePanel()
  }
}
