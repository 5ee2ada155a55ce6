import { useEffect, useState } from 'react'
import { useClient } from './ClientProvider'

/** Whether events reach us (the web transport's socket reconnects; IPC is always connected). */
export function useConnection(): boolean {
  const client = useClient()
  const [connected, setConnected] = useState(false)
  useEffect(() => client.onStatus(setConnected), [client])
  return connected
}
