import { useEffect } from 'react'
import { useStudio } from './state/store'

export const shortcutLabel = (key: string) =>
  `${navigator.platform.toLowerCase().includes('mac') ? '⌘' : 'Ctrl+'}${key}`

/** Ctrl/⌘+O opens a folder, Ctrl/⌘+, opens Settings, Ctrl/⌘+1 the project list. */
export function useShortcuts(): void {
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (!(event.ctrlKey || event.metaKey) || event.altKey) return
      const { navigate } = useStudio.getState()
      if (event.key === 'o') {
        event.preventDefault()
        navigate({ page: 'projects' })
        window.dispatchEvent(new CustomEvent('ralph:open-folder'))
      } else if (event.key === ',') {
        event.preventDefault()
        navigate({ page: 'settings' })
      } else if (event.key === '1') {
        event.preventDefault()
        navigate({ page: 'projects' })
      }
    }
    window.addEventListener('keydown', onKey)
    return () => window.removeEventListener('keydown', onKey)
  }, [])
}
