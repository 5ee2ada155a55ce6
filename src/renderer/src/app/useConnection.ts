import { useEffect, useState } from 'react'
import type { HostLost } from '../api'
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
