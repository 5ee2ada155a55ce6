import { useEffect, useRef, type RefObject } from 'react'
import { surfaceKeys } from '../../app/shortcuts'

/** Something modal or a menu is open: Esc belongs to it, not to the chat. */
const overlayOpen = () => !!document.querySelector('[role="dialog"], [role="alertdialog"], [role="menu"]')

/**
 * The chat's own keys (DESIGN.md §15, issue 12): Ctrl/⌘+K focuses the message box; Esc asks to stop the running
 * task. Ctrl/⌘+Enter is the box's own key.
 */
export function useChatKeys(
  box: RefObject<HTMLTextAreaElement | null>,
  running: boolean,
  askStop: () => void,
) {
  const latest = useRef({ running, askStop })
  useEffect(() => {
    latest.current = { running, askStop }
  })
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.defaultPrevented) return
      if (
        (event.ctrlKey || event.metaKey) &&
        !event.altKey &&
        !event.shiftKey &&
        event.key.toLowerCase() === surfaceKeys.focusMessage.key
      ) {
        event.preventDefault()
        box.current?.focus()
      } else if (event.key === surfaceKeys.stop.key && latest.current.running && !overlayOpen()) {
        event.preventDefault()
        latest.current.askStop()
      }
    }
    window.addEventListener('keydown', onKey)
    return () => window.removeEventListener('keydown', onKey)
  }, [box])
}
