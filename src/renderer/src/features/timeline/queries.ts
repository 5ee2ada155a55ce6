import { keepPreviousData, useInfiniteQuery, useMutation, useQueryClient } from '@tanstack/react-query'
import { useEffect } from 'react'
import type { PruneOptions } from '../../../../shared/api/snapshots'
import { useClient } from '../../app/ClientProvider'
import { callKey, useCall } from '../../app/queries'

export const SNAPSHOT_PAGE = 100

/** What the list shows: the filter and the search run in SQLite, so they reach snapshots not loaded yet. */
export interface SnapshotQuery {
  tasksOnly: boolean
  search: string
}

/**
 * The project's snapshots matching `query`, newest first, a page at a time; `fetchNextPage` reads older ones.
 * The key starts with `['snapshots.list', { projectId }]`, so `snapshot.created` and `snapshot.rolledBack` make
 * it stale (app/eventInvalidation.ts) and every loaded page is read again.
 */
export function useSnapshotPages(projectId: number, query: SnapshotQuery = { tasksOnly: false, search: '' }) {
  const client = useClient()
  const search = query.search.trim()
  const filters = {
    ...(query.tasksOnly ? { tasksOnly: true } : {}),
    ...(search ? { search } : {}),
  }
  return useInfiniteQuery({
    queryKey: callKey('snapshots.list', { projectId, limit: SNAPSHOT_PAGE, ...filters }),
    queryFn: ({ pageParam, signal }) =>
      client.call(
        'snapshots.list',
        { projectId, offset: pageParam, limit: SNAPSHOT_PAGE, ...filters },
        { signal },
      ),
    // Typing in the search keeps the last results up until the new ones are there.
    placeholderData: keepPreviousData,
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

/** How much disk the snapshot store takes. */
export const useStoreUsage = (projectId: number) => useCall('snapshots.usage', { projectId })

/** "Clean up": the prune of #3 with the options given; `dryRun` lists what it would remove. */
export function usePrune(projectId: number) {
  const client = useClient()
  return useMutation({
    mutationFn: (options: PruneOptions) => client.call('snapshots.prune', { projectId, ...options }),
  })
}

/**
 * The background baseline's progress for one project: read once, then kept up to date from the progress events
 * (several a second, so they write the cache instead of making the query refetch).
 */
export function useBaselineProgress(projectId: number | null) {
  const client = useClient()
  const queryClient = useQueryClient()
  const state = useCall(
    'snapshots.baselineState',
    { projectId: projectId ?? 0 },
    { enabled: projectId !== null },
  )
  useEffect(() => {
    if (projectId === null) return
    const key = callKey('snapshots.baselineState', { projectId })
    const offProgress = client.on('snapshot.baselineProgress', (e) => {
      if (e.projectId === projectId) queryClient.setQueryData(key, e.progress)
    })
    const offFinished = client.on('snapshot.baselineFinished', (e) => {
      if (e.projectId === projectId) queryClient.setQueryData(key, null)
    })
    return () => {
      offProgress()
      offFinished()
    }
  }, [client, queryClient, projectId])
  return projectId === null ? null : (state.data ?? null)
}

export function useCancelBaseline() {
  const client = useClient()
  return useMutation({
    mutationFn: (projectId: number) => client.call('snapshots.cancelBaseline', { projectId }),
  })
}
