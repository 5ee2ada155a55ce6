import { useMutation, useQueryClient } from '@tanstack/react-query'
import type { ProviderId, ProviderSettings } from '../../../../shared/settings'
import { useClient } from '../../app/ClientProvider'
import { callKey, useCall } from '../../app/queries'

export const useProvider = () => useCall('settings.getProvider', {})

/** Local model servers on this machine; probing takes a moment, so once per visit is enough. */
export const useLocalServers = () => useCall('settings.detectLocal', {}, { staleTime: 60_000 })

export function useSaveProvider() {
  const client = useClient()
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: ({ settings, apiKey }: { settings: ProviderSettings; apiKey?: string | null }) =>
      client.call('settings.setProvider', { settings, apiKey }),
    onSuccess: (state) => queryClient.setQueryData(callKey('settings.getProvider', {}), state),
  })
}

export function useTestConnection() {
  const client = useClient()
  return useMutation({
    mutationFn: ({ settings, apiKey }: { settings: ProviderSettings; apiKey?: string }) =>
      client.call('settings.testConnection', { settings, apiKey }),
  })
}

/** The models a provider's server lists; asked for on demand (List models, or after Test connection). */
export function useListModels() {
  const client = useClient()
  return useMutation({
    mutationFn: (input: { provider: ProviderId; baseUrl: string | null; apiKey?: string }) =>
      client.call('settings.listModels', input),
  })
}
