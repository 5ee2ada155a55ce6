import { useMutation } from '@tanstack/react-query'
import { useClient } from './ClientProvider'
import { useCall } from './queries'
import { useRuns } from './runStore'

export const useProject = (projectId: number) => useCall('projects.get', { projectId })

/**
 * Whether a task runs on the project: what this window saw live, else what the core says (after a reload, or
 * for a task another window or the CLI started).
 */
export function useRunning(projectId: number): boolean {
  const live = useRuns((s) => s.runs[projectId]?.running ?? null)
  const server = useCall('tasks.running', { projectId })
  return live ?? server.data?.running ?? false
}

export function useStopTask(projectId: number) {
  const client = useClient()
  return useMutation({ mutationFn: () => client.call('tasks.stop', { projectId }) })
}
