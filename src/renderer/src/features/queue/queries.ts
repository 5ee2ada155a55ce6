import { useMutation, useQueryClient } from '@tanstack/react-query'
import type { CallName, Input, Output } from '../../../../shared/api/contract'
import type { QueueBuildMode } from '../../../../shared/queueBuild'
import { useClient } from '../../app/ClientProvider'
import { callKey, useCall } from '../../app/queries'

/**
 * The queue as `ralph query` shows it. Every change refreshes it through `queue.changed` (app/eventInvalidation.ts):
 * the panel's own, and those of writers outside the core (the CLI, `ralph build` in a terminal, a rollback, a hand
 * edit), which the core's watcher of `.ralph/` announces — reading the queue starts that watcher. A focus refetch
 * covers an event lost to a reconnect.
 */
export const useQueueState = (projectId: number) =>
  useCall('queue.state', { projectId }, { refetchOnWindowFocus: true })

/** `.ralph/notifications/`, refreshed by `queue.notificationsChanged` (the same watcher). */
export const useQueueNotifications = (projectId: number) =>
  useCall('queue.notifications', { projectId, limit: 50 }, { refetchOnWindowFocus: true })

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
      // An edit of a task's definition or its removal ends its escalation.
      void queryClient.invalidateQueries({ queryKey: callKey('queue.escalations', { projectId }) })
    },
  })
}

/**
 * The project's escalated tasks (kept in SQLite: a rollback restores plan.jsonl). The interval catches an
 * escalation by `ralph build` in a terminal, which sends no event.
 */
export const useEscalations = (projectId: number) =>
  useCall('queue.escalations', { projectId }, { refetchInterval: 2000, refetchOnWindowFocus: true })

/** Retry an escalated task (fresh attempts) or re-plan a done one (not counted as a failure). */
export function useEscalationControl(projectId: number) {
  const client = useClient()
  const queryClient = useQueryClient()
  const refresh = () =>
    queryClient.invalidateQueries({ queryKey: callKey('queue.escalations', { projectId }) })
  const retry = useMutation({
    mutationFn: (id: string) => client.call('queue.retry', { projectId, id }),
    onSettled: refresh,
  })
  const replan = useMutation({
    mutationFn: (id: string) => client.call('queue.replan', { projectId, id }),
    onSuccess: (result) => queryClient.setQueryData(callKey('queue.state', { projectId }), result.state),
  })
  return { retry, replan }
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

/** The project's "lanes.parallel" (.ralph/config.json) the Lanes choice starts from; read again on focus. */
export const useBuildDefaults = (projectId: number) =>
  useCall('queue.buildDefaults', { projectId }, { refetchOnWindowFocus: true })

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
    mutationFn: (opts: {
      mode: QueueBuildMode
      maxCostUsd?: number
      maxMinutes?: number
      parallel?: number
    }) => client.call('queue.build', { projectId, ...opts }),
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

/** A spec file for the task dialog's editor (null: the queue's own spec); off while `path` is not a valid one. */
export const useSpecFile = (projectId: number, path: string | null, enabled = true) =>
  useCall('queue.spec', { projectId, ...(path ? { path } : {}) }, { enabled, staleTime: 0 })

/** Creates or changes a spec file; the editor's reads of it are asked again. */
export function useSaveSpec(projectId: number) {
  const client = useClient()
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (input: { path: string; text: string }) =>
      client.call('queue.saveSpec', { projectId, ...input }),
    onSettled: () => queryClient.invalidateQueries({ queryKey: callKey('queue.spec') }),
  })
}

/** How long a build that heard "no" may take to pause before the rejection gives up waiting. */
const PAUSE_WAIT_MS = 60_000

/**
 * Reject in one step while an interactive build asks about a task (issue 37): the build hears "no" and pauses
 * with the task done, then the task is rejected with the reason (pending again, the reason for its next attempt).
 * The rejection waits for the build's end (`build.finished`), since the core decides a task only between builds.
 */
export function useRejectAsked(projectId: number) {
  const client = useClient()
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: async ({ id, reason }: { id: string; reason: string }) => {
      // Listening before answering: the build may end before the answer's call returns.
      let ended!: () => void
      const finished = new Promise<void>((resolve) => (ended = resolve))
      const off = client.on('queue.buildEvent', (e) => {
        if (e.projectId === projectId && e.event.type === 'build.finished') ended()
      })
      let timer: ReturnType<typeof setTimeout> | undefined
      try {
        const { answered } = await client.call('queue.approve', { projectId, approve: false })
        if (!answered)
          throw new Error('The build no longer asks about this task: reject it from its row in the queue.')
        if ((await client.call('queue.buildStatus', { projectId })).running) {
          const late = new Promise<never>((_, reject) => {
            timer = setTimeout(
              () =>
                reject(
                  new Error(
                    'The build did not pause after the answer: stop it, then reject the task from its row in the queue.',
                  ),
                ),
              PAUSE_WAIT_MS,
            )
          })
          await Promise.race([finished, late])
        }
      } finally {
        off()
        clearTimeout(timer)
      }
      return client.call('queue.reject', { projectId, id, reason })
    },
    onSuccess: (result) => queryClient.setQueryData(callKey('queue.state', { projectId }), result.state),
    onSettled: () => queryClient.invalidateQueries({ queryKey: callKey('queue.buildStatus', { projectId }) }),
  })
}
