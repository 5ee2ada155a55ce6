import { useMutation } from '@tanstack/react-query'
import { useClient } from '../../app/ClientProvider'
import { useCall } from '../../app/queries'

/**
 * The plan file on disk. Loop writes, saves and edits made elsewhere (another editor, a shell) make it stale
 * through `plan.changed` (app/eventInvalidation.ts): the core watches the open project's `.ralph/` (started by
 * the project page's `queue.buildStatus`). A focus refetch covers an event lost to a reconnect.
 */
export const usePlanFile = (projectId: number) =>
  useCall('plan.read', { projectId }, { refetchOnWindowFocus: true })

export function useSavePlan(projectId: number) {
  const client = useClient()
  return useMutation({
    mutationFn: (input: { text: string; baseVersion?: string; force?: boolean }) =>
      client.call('plan.save', { projectId, ...input }),
  })
}

/** Two versions of the plan; without a range, the core picks the last task's pre → post. */
export const usePlanCompare = (
  projectId: number,
  range: { from: string; to: string } | null,
  enabled = true,
) => useCall('plan.compare', range ? { projectId, ...range } : { projectId }, { staleTime: 0, enabled })

/** Tags to compare, newest first. */
export const useSnapshotTags = (projectId: number) => useCall('snapshots.list', { projectId, limit: 500 })
