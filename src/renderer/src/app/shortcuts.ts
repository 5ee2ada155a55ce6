import { useEffect } from 'react'
import { useProjectsUi } from '../features/projects'
import { toggleSidePanel } from '../features/project/sideDrawer'
import { markFocus } from '../ui'
import { leaveWithReturn, returnToLeft } from './focusOnRoute'
import { parseHash } from './routes'
import { navigate } from './useRoute'

const isMac = () => /mac/i.test(navigator.platform)

/** How a Ctrl/⌘ shortcut is written on this platform: "⌘O" on a Mac, "Ctrl+O" elsewhere. */
export const shortcutLabel = (key: string): string =>
  `${isMac() ? '⌘' : 'Ctrl+'}${key.length === 1 ? key.toUpperCase() : key}`

export interface Shortcut {
  /** KeyboardEvent.key, pressed with Ctrl (⌘ on a Mac) and without Alt. */
  key: string
  description: string
  run(): void
}

/** The app-wide shortcuts; a surface's own keys (send, save …) live with the surface. */
export const shortcuts: Shortcut[] = [
  { key: '1', description: 'Go to the project list', run: () => navigate({ page: 'projects' }) },
  {
    key: ',',
    description: 'Open Settings (again: back to where you were)',
    run: () => {
      if (parseHash(window.location.hash).page === 'settings') return returnToLeft()
      leaveWithReturn(window.location.hash, markFocus())
      navigate({ page: 'settings' })
    },
  },
  {
    key: 'o',
    description: 'Open a folder',
    run: () => {
      useProjectsUi.getState().requestOpenFolder()
      navigate({ page: 'projects' })
    },
  },
  {
    key: 'b',
    description: 'Show or hide the side panel',
    run: () => {
      if (parseHash(window.location.hash).page === 'project') toggleSidePanel()
    },
  },
]

/** A key a surface handles itself (the chat, the plan): listed in the shortcut sheet from here. */
export interface SurfaceKey {
  /** KeyboardEvent.key. */
  key: string
  /** Pressed with Ctrl (⌘ on a Mac). */
  mod: boolean
  description: string
}

/**
 * The surfaces' own keys, by where they work. Their handlers read the key from here (useChatKeys, the composer),
 * so the "?" sheet cannot list a key that does something else.
 */
export const surfaceKeys = {
  send: { key: 'Enter', mod: true, description: 'Send the message' },
  focusMessage: { key: 'k', mod: true, description: 'Go to the message box' },
  stop: { key: 'Escape', mod: false, description: 'Stop what is running (asks first)' },
  savePlan: { key: 's', mod: true, description: 'Save the plan' },
  close: {
    key: 'Escape',
    mod: false,
    description: 'Close a dialog, the side panel drawer or the full-width plan',
  },
  help: { key: '?', mod: false, description: 'Show these shortcuts (outside a text field)' },
  // Ctrl+Shift+/ on most keyboards: the same sheet from inside a text field too.
  helpAnywhere: { key: '?', mod: true, description: 'Show these shortcuts (in a text field too)' },
} as const satisfies Record<string, SurfaceKey>

/** How a key is written in the sheet: "Ctrl+K", "⌘Enter", "Esc", "?". */
export const keyLabel = (k: { key: string; mod: boolean }): string =>
  k.mod ? shortcutLabel(k.key) : k.key === 'Escape' ? 'Esc' : k.key

export interface SheetGroup {
  title: string
  keys: { keys: string; description: string }[]
}

/** What the "?" sheet lists: the app-wide shortcuts, then each surface's own keys. One list, from this file. */
export function shortcutSheet(): SheetGroup[] {
  const row = (k: SurfaceKey) => ({ keys: keyLabel(k), description: k.description })
  return [
    {
      title: 'Anywhere',
      keys: [
        ...shortcuts.map((s) => ({ keys: shortcutLabel(s.key), description: s.description })),
        row(surfaceKeys.close),
        row(surfaceKeys.help),
        row(surfaceKeys.helpAnywhere),
      ],
    },
    {
      title: 'Chat',
      keys: [row(surfaceKeys.send), row(surfaceKeys.focusMessage), row(surfaceKeys.stop)],
    },
    { title: 'Plan', keys: [row(surfaceKeys.savePlan)] },
  ]
}

/** Typing goes to this element (a text field, an editor): a bare "?" is text there, not a shortcut. */
export function isTyping(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false
  if (target.isContentEditable) return true
  if (target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement) return true
  if (!(target instanceof HTMLInputElement)) return false
  return !['button', 'checkbox', 'radio', 'range', 'submit', 'reset', 'file', 'color'].includes(target.type)
}

/**
 * With no dialog open, the shortcut sheet: "?" (Shift+/ on most keyboards) outside a text field, or Ctrl/⌘+"?"
 * anywhere (a bare "?" in a text field is text).
 */
export function isSheetKey(event: KeyboardEvent): boolean {
  const mod = event.ctrlKey || event.metaKey
  if (event.altKey) return false
  const bare = !mod && event.key === surfaceKeys.help.key && !isTyping(event.target)
  const anywhere = mod && event.key === surfaceKeys.helpAnywhere.key
  if (!bare && !anywhere) return false
  return !document.querySelector('[role="dialog"], [role="alertdialog"], [role="menu"]')
}

export function matchShortcut(event: KeyboardEvent): Shortcut | undefined {
  if (!(event.ctrlKey || event.metaKey) || event.altKey || event.shiftKey) return undefined
  return shortcuts.find((s) => s.key === event.key.toLowerCase())
}

export function useShortcuts(): void {
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      const shortcut = matchShortcut(event)
      if (!shortcut) return
      event.preventDefault()
      shortcut.run()
    }
    window.addEventListener('keydown', onKey)
    return () => window.removeEventListener('keydown', onKey)
  }, [])
}
