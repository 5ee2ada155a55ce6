import { useEffect } from 'react'
import { focusWhenShown, type FocusMark } from '../ui'
import { parseHash, routeHash, type Route } from './routes'

/** The page left for another by a shortcut (Ctrl/⌘+,), and what had focus there. */
let left: { hash: string; mark: FocusMark | null } | null = null

/** Remembers where the user was before a shortcut took them away, so coming back puts focus where it was. */
export function leaveWithReturn(hash: string, mark: FocusMark | null): void {
  left = { hash: routeHash(parseHash(hash)), mark }
}

/** Goes back to the page that was left (nothing to go back to: stays). */
export function returnToLeft(): void {
  if (left) window.location.hash = left.hash
}

/**
 * Coming back to the page that was left (by Back, the shortcut again, or a link), focus goes to the control that
 * had it, once the page has drawn it again. Going anywhere else forgets it.
 */
export function useReturnFocus(route: Route): void {
  const hash = routeHash(route)
  useEffect(() => {
    if (!left) return
    if (hash === left.hash) {
      const { mark } = left
      left = null
      if (mark) return focusWhenShown(mark)
    } else if (route.page !== 'settings') {
      left = null
    }
  }, [hash, route.page])
}
