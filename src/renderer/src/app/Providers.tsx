import { QueryClient, QueryClientProvider } from '@tanstack/react-query'
import { useEffect, type ReactNode } from 'react'
import type { Client } from '../api'
import { subscribeRunEvents } from './runStore'
import { Toaster, TooltipProvider } from '../ui'
import { ClientProvider } from './ClientProvider'
import { subscribeInvalidation } from './eventInvalidation'
import { useTheme } from './theme'
import { pauseQueriesWhileDisconnected } from './useConnection'

export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      // Events keep the cache fresh (eventInvalidation.ts); a failed call shows its error at once instead of
      // retrying a validation or not-found error three times.
      queries: { retry: false, staleTime: 10_000 },
      // Queries wait while the host is away (pauseQueriesWhileDisconnected); an action still runs and says why.
      mutations: { retry: false, networkMode: 'always' },
    },
  })
}

/**
 * Everything the screens need from above: the contract client, the query cache fed by contract events, tooltips
 * and the toast outlet. Events missed while the connection was down are made up for by refetching everything.
 */
export function Providers({
  client,
  queryClient,
  children,
}: {
  client: Client
  queryClient: QueryClient
  children: ReactNode
}) {
  const theme = useTheme((s) => s.theme)

  useEffect(() => {
    let lost = false
    let seen = false
    const offs = [
      subscribeInvalidation(client, queryClient),
      subscribeRunEvents(client),
      pauseQueriesWhileDisconnected(client),
      client.onStatus((connected) => {
        if (connected && lost) void queryClient.invalidateQueries()
        if (connected) seen = true
        lost = !connected && seen
      }),
    ]
    return () => offs.forEach((off) => off())
  }, [client, queryClient])

  return (
    <ClientProvider client={client}>
      <QueryClientProvider client={queryClient}>
        <TooltipProvider delayDuration={350} skipDelayDuration={200}>
          {children}
          <Toaster theme={theme} />
        </TooltipProvider>
      </QueryClientProvider>
    </ClientProvider>
  )
}
