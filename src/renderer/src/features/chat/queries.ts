import { useInfiniteQuery, useMutation, useQueryClient } from '@tanstack/react-query'
import type { ChatMode } from '../../../../shared/api/chat'
import { useClient } from '../../app/ClientProvider'
import { callKey, useCall } from '../../app/queries'
import type { TaskCaps } from '../../../../shared/budget'
import { useRuns } from '../../app/runStore'
import { useChatUi } from './chatUi'
import type { PickedImage } from './composerImages'
import { nextTaskCaps } from './costCap'

export const PAGE_SIZE = 30

/**
 * A conversation's messages, a page at a time from the newest; `fetchNextPage` reads older ones. Events make it
 * stale (app/eventInvalidation.ts) and every loaded page is read again, so a card always shows its run's rows.
 */
export function useHistory(projectId: number, conversationId: number | null) {
  const client = useClient()
  const input = conversationId === null ? { projectId } : { projectId, conversationId }
  return useInfiniteQuery({
    queryKey: callKey('chat.history', input),
    queryFn: ({ pageParam, signal }) =>
      client.call(
        'chat.history',
        { ...input, limit: PAGE_SIZE, ...(pageParam === undefined ? {} : { before: pageParam }) },
        { signal },
      ),
    initialPageParam: undefined as number | undefined,
    getNextPageParam: (last) => last.nextBefore ?? undefined,
  })
}

export const useConversations = (projectId: number) => useCall('chat.conversations', { projectId })

/** A Task message carries the composer's caps when set (chat.send's `maxCostUsd`, `maxTokens`). */
function taskCap(projectId: number, mode: ChatMode): TaskCaps {
  return mode === 'task' ? nextTaskCaps(projectId) : {}
}

export function useSend(projectId: number) {
  const client = useClient()
  const queryClient = useQueryClient()
  return useMutation({
    /** `queue`: a task is running, so this one waits as a queued card and the running one's progress stays. */
    mutationFn: ({
      mode,
      text,
      answering,
      images,
    }: {
      mode: ChatMode
      text: string
      queue: boolean
      answering?: number
      images?: { name: string; mediaType: PickedImage['mediaType']; base64: string }[]
    }) =>
      client.call('chat.send', {
        projectId,
        mode,
        text,
        ...taskCap(projectId, mode),
        ...(mode === 'task' && answering !== undefined ? { answering } : {}),
        ...(mode === 'task' && images?.length
          ? { attachments: images.map(({ name, mediaType, base64 }) => ({ name, mediaType, base64 })) }
          : {}),
      }),
    // Stop shows at once for a task; the loop's first event confirms it.
    onMutate: ({ mode, queue }) =>
      mode === 'task' && !queue ? useRuns.getState().started(projectId) : undefined,
    onError: (_err, { mode, queue }) =>
      mode === 'task' && !queue ? useRuns.getState().startFailed(projectId) : undefined,
    // Not awaited: while a task streams, each event restarts the history's refetch, so awaiting it could keep
    // the send pending (and the composer's Send disabled) for as long as the task runs.
    onSettled: () => void queryClient.invalidateQueries({ queryKey: callKey('chat.history', { projectId }) }),
  })
}

/** Stops the Ask answers being written; the stored answer (cut short) arrives with chat.changed. */
export function useStopAnswer(projectId: number) {
  const client = useClient()
  return useMutation({ mutationFn: () => client.call('chat.stopAnswer', { projectId }) })
}

/** Remove or Start now on a queued card. */
export function useQueuedAction(projectId: number) {
  const client = useClient()
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: async ({ action, messageId }: { action: 'remove' | 'start'; messageId: number }) => {
      if (action === 'remove') await client.call('chat.removeQueued', { projectId, messageId })
      else await client.call('chat.startQueued', { projectId, messageId })
    },
    onSettled: () => void queryClient.invalidateQueries({ queryKey: callKey('chat.history', { projectId }) }),
  })
}

/** Resume on an interrupted card: the same card goes back to Running, then to its outcome. */
export function useResume(projectId: number) {
  const client = useClient()
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (runId: number) => client.call('chat.resume', { projectId, runId }),
    // Stop shows at once; the loop's first event confirms it.
    onMutate: () => useRuns.getState().started(projectId),
    onError: () => useRuns.getState().startFailed(projectId),
    onSettled: () => void queryClient.invalidateQueries({ queryKey: callKey('chat.history', { projectId }) }),
  })
}

export function useNewConversation(projectId: number) {
  const client = useClient()
  return useMutation({ mutationFn: () => client.call('chat.newConversation', { projectId }) })
}

/** The task waiting for an answer, as the first page of the conversation being read says (null: none). */
export function usePendingQuestion(projectId: number) {
  const viewing = useChatUi((s) => s.viewing[projectId] ?? null)
  return useHistory(projectId, viewing).data?.pages[0]?.pendingQuestion ?? null
}

/** Dismiss: the waiting task ends as Stopped (its pre-task snapshot kept); the next message starts a new task. */
export function useDismissQuestion(projectId: number) {
  const client = useClient()
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (task: number) => client.call('chat.dismissQuestion', { projectId, task }),
    onSettled: () => void queryClient.invalidateQueries({ queryKey: callKey('chat.history', { projectId }) }),
  })
}

/** After a Stop: the queued follow-ups run (the oldest starts, the rest follow it) or are all removed. */
export function useQueuedAfterStop(projectId: number) {
  const client = useClient()
  const queryClient = useQueryClient()
  return useMutation({
    /** `ids`: the queued cards, oldest first. */
    mutationFn: async ({ action, ids }: { action: 'run' | 'remove'; ids: number[] }) => {
      if (action === 'run') {
        if (ids[0] !== undefined) await client.call('chat.startQueued', { projectId, messageId: ids[0] })
        return
      }
      for (const messageId of ids) await client.call('chat.removeQueued', { projectId, messageId })
    },
    onSettled: () => void queryClient.invalidateQueries({ queryKey: callKey('chat.history', { projectId }) }),
  })
}
