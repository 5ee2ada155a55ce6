import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useClient } from '../../app/ClientProvider'
import { callKey, useCall } from '../../app/queries'

/**
 * The user's repository for the header. Read again on window focus (the user works in their own terminal and
 * editor too) and when a task finishes or a rollback rewrites files (app/eventInvalidation.ts).
 */
export const useUserGitStatus = (projectId: number) =>
  useCall('userGit.status', { projectId }, { refetchOnWindowFocus: true })

/**
 * The commits "Commit to my git" made (kept in SQLite, so they outlive a restart), each checked against the user's
 * repository now: read again on window focus, since the user may have reset one away in their terminal.
 */
export const useUserCommits = (projectId: number) =>
  useCall(
    'userGit.commits',
    { projectId },
    // Every focus asks again (stale at once), but a card scrolled into view reuses what is there.
    { staleTime: 0, refetchOnMount: false, refetchOnWindowFocus: true },
  )

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
    mutationFn: (input: { task: number; message: string; allow?: string[]; untrustedConfirmed?: string }) =>
      client.call('userGit.commitTask', { projectId, ...input }),
    // Committed or refused, the repository is what it is now: read it again (awaited, so the card shows the new
    // commit by the time the dialog closes).
    onSettled: () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: callKey('userGit.commits', { projectId }) }),
        queryClient.invalidateQueries({ queryKey: callKey('userGit.status', { projectId }) }),
        queryClient.invalidateQueries({ queryKey: callKey('userGit.previewCommit', { projectId }) }),
      ]),
  })
}

/** The user trusts the repository as shown (its fingerprint): recorded by the core, refused if it changed since. */
export function useTrustRepo(projectId: number) {
  const client = useClient()
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (fingerprint: string) => client.call('userGit.trust', { projectId, fingerprint }),
    onSettled: () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: callKey('userGit.status', { projectId }) }),
        queryClient.invalidateQueries({ queryKey: callKey('userGit.previewCommit', { projectId }) }),
      ]),
  })
}

/** "Hide .ralph/ from git status": the one line in the repository's info/exclude, written when the user asks. */
export function useExcludeRalph(projectId: number) {
  const client = useClient()
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: () => client.call('userGit.excludeRalph', { projectId }),
    onSettled: () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: callKey('userGit.status', { projectId }) }),
        queryClient.invalidateQueries({ queryKey: callKey('userGit.previewCommit', { projectId }) }),
      ]),
  })
}
