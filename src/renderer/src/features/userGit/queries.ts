import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useClient } from '../../app/ClientProvider'
import { callKey, useCall } from '../../app/queries'

/**
 * The user's repository for the header. Read again on window focus (the user works in their own terminal and
 * editor too) and when a task finishes or a rollback rewrites files (app/eventInvalidation.ts).
 */
export const useUserGitStatus = (projectId: number) =>
  useCall('userGit.status', { projectId }, { refetchOnWindowFocus: true })

/** What "Commit to my git" would commit, asked fresh each time the dialog opens. */
export const useCommitPreview = (projectId: number, task: number | null) =>
  useCall(
    'userGit.previewCommit',
    { projectId, task: task ?? 1 },
    { enabled: task !== null, staleTime: 0, gcTime: 0, refetchOnWindowFocus: true },
  )

export function useCommitTask(projectId: number) {
  const client = useClient()
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: ({ task, message }: { task: number; message: string }) =>
      client.call('userGit.commitTask', { projectId, task, message }),
    // Committed or refused, the repository is what it is now: read it again.
    onSettled: () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: callKey('userGit.status', { projectId }) }),
        queryClient.invalidateQueries({ queryKey: callKey('userGit.previewCommit', { projectId }) }),
      ]),
  })
}
