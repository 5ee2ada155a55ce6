import { useInfiniteQuery, useMutation } from '@tanstack/react-query'
import { useClient } from '../../app/ClientProvider'
import { callKey, useCall } from '../../app/queries'

export const SNAPSHOT_PAGE = 100

/**
 * The project's snapshots, newest first, a page at a time; `fetchNextPage` reads older ones. The key starts with
 * `['snapshots.list', { projectId }]`, so `snapshot.created` and `snapshot.rolledBack` make it stale
 * (app/eventInvalidation.ts) and every loaded page is read again.
 */
export function useSnapshotPages(projectId: number) {
  const client = useClient()
  return useInfiniteQuery({
    queryKey: callKey('snapshots.list', { projectId, limit: SNAPSHOT_PAGE }),
    queryFn: ({ pageParam, signal }) =>
      client.call('snapshots.list', { projectId, offset: pageParam, limit: SNAPSHOT_PAGE }, { signal }),
    initialPageParam: 0,
    getNextPageParam: (last, pages) => {
      const loaded = pages.reduce((n, p) => n + p.items.length, 0)
      return loaded < last.total && last.items.length > 0 ? loaded : undefined
    },
  })
}

/** Where the working copy stands against the latest snapshot. */
export const useSnapshotStatus = (projectId: number) =>
  useCall('snapshots.status', { projectId }, { refetchOnWindowFocus: true })

export const useRollbackPreview = (projectId: number, tag: string | null) =>
  useCall(
    'snapshots.previewRollback',
    { projectId, tag: tag ?? '-' },
    { enabled: tag !== null, staleTime: 0 },
  )

export function useSaveSnapshot(projectId: number) {
  const client = useClient()
  return useMutation({
    mutationFn: (message?: string) =>
      client.call('snapshots.save', { projectId, kind: 'manual', ...(message ? { message } : {}) }),
  })
}

export function useRollback(projectId: number) {
  const client = useClient()
  return useMutation({ mutationFn: (tag: string) => client.call('snapshots.rollback', { projectId, tag }) })
}

export function useUndoRollback(projectId: number) {
  const client = useClient()
  return useMutation({ mutationFn: () => client.call('snapshots.undo', { projectId }) })
}
