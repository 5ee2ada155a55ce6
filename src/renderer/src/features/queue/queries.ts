import { useMutation, useQueryClient } from '@tanstack/react-query'
import type { CallName, Input, Output } from '../../../../shared/api/contract'
import type { QueueBuildMode } from '../../../../shared/queueBuild'
import { useClient } from '../../app/ClientProvider'
import { callKey, useCall } from '../../app/queries'

/**
 * The queue as `ralph query` shows it. The panel's own changes refresh it through `queue.changed`
 * (app/eventInvalidation.ts); the interval catches writers that send no event: the CLI, `ralph build`, a rollback
 * that restored the file, a hand edit.
 */
export const useQueueState = (projectId: number) =>
  useCall('queue.state', { projectId }, { refetchInterval: 2000, refetchOnWindowFocus: true })

export const useQueueNotifications = (projectId: number) =>
  useCall('queue.notifications', { projectId, limit: 50 }, { refetchInterval: 5000 })

type QueueMutation = Extract<
  CallName,
  | 'queue.addTask'
  | 'queue.editTask'
  | 'queue.removeTask'
  | 'queue.reorder'
  | 'queue.accept'
  | 'queue.reject'
  | 'queue.addIssue'
  | 'queue.closeIssue'
>

/** One queue mutation for this project; its answer (the new state) goes straight into the cache. */
export function useQueueMutation<N extends QueueMutation>(projectId: number, name: N) {
  const client = useClient()
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (input: Omit<Input<N>, 'projectId'>) =>
      client.call(name, { projectId, ...input } as Input<N>) as Promise<Output<N>>,
    onSuccess: (result) => {
      queryClient.setQueryData(callKey('queue.state', { projectId }), result.state)
    },
  })
}

/**
 * The project's panel build (running or last). `queue.buildEvent` refreshes it (app/eventInvalidation.ts); the
 * interval while running catches an event lost to a reconnect.
 */
export const useBuildStatus = (projectId: number) =>
  useCall(
    'queue.buildStatus',
    { projectId },
    { refetchInterval: (query) => (query.state.data?.running ? 3000 : false) },
  )

/** A task's stored verifications, newest first; a finished verification refreshes them. */
export const useVerifications = (projectId: number, taskId: string) =>
  useCall('queue.verdicts', { projectId, taskId })

/** Starts or stops the project's build; the answer's progress comes through `queue.buildEvent`. */
export function useBuildControl(projectId: number) {
  const client = useClient()
  const queryClient = useQueryClient()
  const refresh = () =>
    queryClient.invalidateQueries({ queryKey: callKey('queue.buildStatus', { projectId }) })
  const start = useMutation({
    mutationFn: (mode: QueueBuildMode) => client.call('queue.build', { projectId, mode }),
    onSettled: refresh,
  })
  const approve = useMutation({
    mutationFn: (approve: boolean) => client.call('queue.approve', { projectId, approve }),
    onSettled: refresh,
  })
  const stop = useMutation({
    mutationFn: () => client.call('queue.stopBuild', { projectId }),
    onSettled: refresh,
  })
  return { start, stop, approve }
}
