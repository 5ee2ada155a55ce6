import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useClient } from '../../app/ClientProvider'
import { callKey, useCall } from '../../app/queries'
import { navigate } from '../../app/useRoute'

export const useProjects = () => useCall('projects.list', {})

/** Each project's status and last task; loop and project events keep it fresh (app/eventInvalidation). */
export const useActivity = () => useCall('tasks.activity', {})

/** What the core answers when a folder looks like a home folder and the user must confirm it first. */
export interface HomeLikeQuestion {
  path: string
  signs: string[]
}

/** The home-like question carried by a failed open, or null for any other failure. */
export function homeLikeQuestion(error: unknown): HomeLikeQuestion | null {
  const details = (error as { details?: unknown } | null)?.details as
    | { needsConfirmation?: unknown; path?: unknown; signs?: unknown }
    | undefined
  if (details?.needsConfirmation !== 'home-like' || typeof details.path !== 'string') return null
  const signs = Array.isArray(details.signs)
    ? details.signs.filter((s): s is string => typeof s === 'string')
    : []
  return { path: details.path, signs }
}

/** Opens (or re-opens) a folder as a project and goes to it; `confirmHomeLike` after the user said yes. */
export function useOpenProject() {
  const client = useClient()
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (req: string | { path: string; confirmHomeLike: true }) =>
      client.call('projects.open', typeof req === 'string' ? { path: req } : req),
    onSuccess(project) {
      queryClient.setQueryData(callKey('projects.get', { projectId: project.id }), project)
      void queryClient.invalidateQueries({ queryKey: callKey('projects.list') })
      navigate({ page: 'project', projectId: project.id })
    },
  })
}

/** Removes a project from the list; its folder and .ralph/ stay as they are. */
export function useForgetProject() {
  const client = useClient()
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (projectId: number) => client.call('projects.forget', { projectId }),
    onSuccess(_result, projectId) {
      queryClient.removeQueries({ queryKey: callKey('projects.get', { projectId }) })
      return queryClient.invalidateQueries({ queryKey: callKey('projects.list') })
    },
  })
}
