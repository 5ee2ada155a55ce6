import { useEffect } from 'react'
import { useProjectUi } from './projectUi'
import { useProjectsUi } from '../features/projects'
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
  { key: ',', description: 'Open Settings', run: () => navigate({ page: 'settings' }) },
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
      if (parseHash(window.location.hash).page === 'project') useProjectUi.getState().toggleSidePanel()
    },
  },
]

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
