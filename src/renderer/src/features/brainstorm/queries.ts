import { useMutation, useQueryClient } from '@tanstack/react-query'
import type { Input } from '../../../../shared/api/contract'
import { useClient } from '../../app/ClientProvider'
import { callKey, useCall } from '../../app/queries'

export const useBrainstorm = (projectId: number) => useCall('brainstorm.get', { projectId })
export const useIdeas = (projectId: number) => useCall('brainstorm.ideas', { projectId })
export const useTechniques = () => useCall('brainstorm.techniques', {}, { staleTime: Infinity })

type Step =
  | { call: 'brainstorm.start'; input: Omit<Input<'brainstorm.start'>, 'projectId'> }
  | { call: 'brainstorm.answer'; input: Omit<Input<'brainstorm.answer'>, 'projectId'> }
  | { call: 'brainstorm.useDraft'; input: Omit<Input<'brainstorm.useDraft'>, 'projectId'> }

/**
 * One step of the session (start, an answer, a hand-fixed draft). The core runs it in the background and says
 * so at once (`running`), so the page re-reads the session as soon as the call returns.
 */
export function useStep(projectId: number) {
  const client = useClient()
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (step: Step) => client.call(step.call, { projectId, ...step.input } as never),
    onSettled: () => queryClient.invalidateQueries({ queryKey: callKey('brainstorm.get', { projectId }) }),
  })
}

export function useStop(projectId: number) {
  const client = useClient()
  return useMutation({ mutationFn: () => client.call('brainstorm.stop', { projectId }) })
}
