import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useClient } from '../../app/ClientProvider'
import { callKey, useCall } from '../../app/queries'
import { navigate } from '../../app/useRoute'

export const useProjects = () => useCall('projects.list', {})

/** Each project's status and last task; loop and project events keep it fresh (app/eventInvalidation). */
export const useActivity = () => useCall('tasks.activity', {})

/** Opens (or re-opens) a folder as a project and goes to it. */
export function useOpenProject() {
  const client = useClient()
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (path: string) => client.call('projects.open', { path }),
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
