import { onlineManager } from '@tanstack/react-query'
import { useEffect, useState } from 'react'
import type { Client, HostLost } from '../api'
import { useClient } from './ClientProvider'

/** Whether events reach us, and when they cannot, why (IPC is always connected). */
export type ConnectionState = 'connected' | 'reconnecting' | HostLost

/** The web transport's socket reconnects with backoff; a host that restarted or stopped is named as such. */
export function useConnection(): ConnectionState {
  const client = useClient()
  const [state, setState] = useState<ConnectionState>('reconnecting')
  useEffect(
    () => client.onStatus((connected, lost) => setState(connected ? 'connected' : (lost ?? 'reconnecting'))),
    [client],
  )
  return state
}

/** The status bar's words for each state, and what to do about a lost host (the shell's banner says it in full). */
export const connectionText: Record<ConnectionState, { label: string; explain: string }> = {
  connected: {
    label: 'Connected',
    explain: 'Live updates from Ralph Studio arrive in this window.',
  },
  reconnecting: {
    label: 'Reconnecting…',
    explain: 'The connection for live updates dropped; this window is trying again.',
  },
  unreachable: {
    label: 'Host not answering',
    explain:
      'It may have stopped. When it runs again, open the address it printed in the terminal where it was started (a restarted host has a new token in its address). This window keeps trying meanwhile.',
  },
  restarted: {
    label: 'Host restarted',
    explain:
      'This window’s access ended with the old host. Open the new address (with its new token) that the host printed in the terminal where it was started. If you already opened it in another tab, reload this one.',
  },
}

/** Why nothing can be sent from this window now that its host is gone, or null while it is there (or coming back). */
export function hostLostReason(state: ConnectionState): string | null {
  if (state === 'restarted')
    return 'The web host restarted: open the new address it printed to send. Your draft is kept for it.'
  if (state === 'unreachable') return 'The web host is not answering: wait for it, or open its new address.'
  return null
}

/** hostLostReason for the current connection (the composer's Send says it). */
export const useHostLostReason = (): string | null => hostLostReason(useConnection())

/**
 * Queries fetch only while the host is there: once it is gone (a restart, a stop) what is on screen
 * stays as it was, read-only, instead of each refetch replacing it with "Cannot reach the web host"; when the socket
 * is back, everything is fetched again. Mutations are not held (their error shows where the user acted).
 * Returns the unsubscribe.
 */
export function pauseQueriesWhileDisconnected(client: Client): () => void {
  let off: () => void = () => {}
  onlineManager.setEventListener((setOnline) => {
    // Held only once the host is known to be gone: while the socket is still connecting (a fresh page) or trying
    // again after a drop, queries run as usual, so nothing waits on the socket to show what the host has.
    off = client.onStatus((connected, lost) => setOnline(connected || !lost))
    return () => off()
  })
  return () => {
    off()
    onlineManager.setOnline(true)
  }
}
