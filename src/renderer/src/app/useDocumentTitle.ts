import { useEffect } from 'react'

/** "<screen> — Ralph Studio" in the window title, task switcher and history. */
export function useDocumentTitle(screen: string | null): void {
  useEffect(() => {
    document.title = screen ? `${screen} — Ralph Studio` : 'Ralph Studio'
  }, [screen])
}
