import { Toaster as Sonner } from 'sonner'

export { toast } from 'sonner'

/** The one toast outlet (sonner), themed with the app; toasts sit above the status bar. */
export function Toaster({ theme }: { theme: 'light' | 'dark' }) {
  return (
    <Sonner
      theme={theme}
      position="bottom-right"
      offset={{ bottom: 40, right: 16 }}
      closeButton
      toastOptions={{ className: 'toast' }}
    />
  )
}
