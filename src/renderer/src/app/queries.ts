import { useQuery, type QueryKey, type UseQueryOptions } from '@tanstack/react-query'
import type { CallName, Input, Output } from '../../../shared/api/contract'
import { useClient } from './ClientProvider'

/**
 * Query keys are the contract call and its input: `['projects.get', { projectId: 3 }]`. A key with a partial
 * input (or none) matches every query of that call with those fields, which is what invalidation wants.
 */
export const callKey = <N extends CallName>(name: N, input?: Partial<Input<N>>): QueryKey =>
  input === undefined ? [name] : [name, input]

/** Server state: one contract call, cached under its key, cancelled through the query's AbortSignal. */
export function useCall<N extends CallName>(
  name: N,
  input: Input<N>,
  options: Omit<UseQueryOptions<Output<N>, Error>, 'queryKey' | 'queryFn'> = {},
) {
  const client = useClient()
  return useQuery<Output<N>, Error>({
    queryKey: callKey(name, input as Partial<Input<N>>),
    queryFn: ({ signal }) => client.call(name, input, { signal }),
    ...options,
  })
}

export const errorMessage = (err: unknown): string => (err instanceof Error ? err.message : String(err))
