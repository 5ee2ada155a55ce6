import { createContext, useContext, type ReactNode } from 'react'
import type { Client } from '../api'

const ClientContext = createContext<Client | null>(null)

/** Gives the contract client to the tree; main.tsx creates it, tests pass one over a fake transport. */
export function ClientProvider({ client, children }: { client: Client; children: ReactNode }) {
  return <ClientContext.Provider value={client}>{children}</ClientContext.Provider>
}

export function useClient(): Client {
  const client = useContext(ClientContext)
  if (!client) throw new Error('useClient() needs a <ClientProvider> above it.')
  return client
}
