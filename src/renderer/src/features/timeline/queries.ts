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

/** Every tag for Compare's From and To (newest first). */
export const useCompareTags = (projectId: number) => useCall('snapshots.list', { projectId, limit: 1000 })

type Call = { target: string; against?: string }
const callInput = (c: Call) => ({
  target: c.target,
  ...(c.against !== undefined ? { against: c.against } : {}),
})

/** The changed files of a range (the core's `snapshots.diff`); a diff against the working copy is never cached. */
export const useRangeDiff = (projectId: number, call: Call | null) =>
  useCall(
    'snapshots.diff',
    { projectId, ...callInput(call ?? { target: '-' }) },
    { enabled: call !== null, staleTime: call?.against === undefined ? 0 : Infinity },
  )

/** Lines added and deleted per file, asked once the file list is there. */
export const useDiffStats = (
  projectId: number,
  call: Call | null,
  files: { path: string; oldPath?: string }[],
) =>
  useCall(
    'snapshots.diffStats',
    { projectId, ...callInput(call ?? { target: '-' }), files },
    { enabled: call !== null && files.length > 0, staleTime: call?.against === undefined ? 0 : Infinity },
  )

/** One file on both sides, for Monaco's diff editor. */
export const useFileDiff = (
  projectId: number,
  call: Call | null,
  file: { path: string; oldPath?: string } | null,
) =>
  useCall(
    'snapshots.fileDiff',
    { projectId, ...callInput(call ?? { target: '-' }), ...(file ?? { path: '-' }) },
    { enabled: call !== null && file !== null, staleTime: call?.against === undefined ? 0 : Infinity },
  )
