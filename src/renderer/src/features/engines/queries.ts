import { useMutation, useQueryClient } from '@tanstack/react-query'
import {
  engineLabels,
  type EngineChoice,
  type EngineInstallInfo,
  type ProjectEngineSetting,
} from '../../../../shared/api/engines'
import { useClient } from '../../app/ClientProvider'
import { callKey, useCall } from '../../app/queries'

/** The agent CLIs on the host (it asks them once a minute at most), with one project's setting when given. */
export const useEngines = (projectId?: number, enabled = true) =>
  useCall('engines.list', projectId === undefined ? {} : { projectId }, { staleTime: 60_000, enabled })

/** Only the project's setting: no CLI is asked anything. */
export const useProjectEngine = (projectId: number, enabled = true) =>
  useCall('engines.project', { projectId }, { enabled })

/** "Check again": the host looks the CLIs up now, and every list shows the new answer. */
export function useCheckAgain() {
  const client = useClient()
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: () => client.call('engines.list', { refresh: true }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: callKey('engines.list') }),
  })
}

/** Locate…: the host checks the program and stores it; every list shows the answer. */
export function useLocateEngine() {
  const client = useClient()
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (input: { engine: EngineInstallInfo['id']; path: string | null }) =>
      client.call('engines.locate', input),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: callKey('engines.list') }),
  })
}

export function useSetEngine(projectId: number) {
  const client = useClient()
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (next: { engine: EngineChoice; engineModel: string | null }) =>
      client.call('engines.setForProject', { projectId, ...next }),
    onSuccess: async (setting) => {
      queryClient.setQueryData(callKey('engines.project', { projectId }), setting)
      await queryClient.invalidateQueries({ queryKey: callKey('engines.list') })
    },
  })
}

/** Why an engine cannot be chosen here, or null when it can. */
export function unavailableReason(
  id: EngineChoice,
  installs: EngineInstallInfo[] | undefined,
): string | null {
  if (id === 'built-in') return null
  if (!installs) return 'Looking for it on this machine…'
  const install = installs.find((i) => i.id === id)
  if (!install || !install.installed) return `${engineLabels[id]} is not installed on this machine.`
  if (install.version === null) return `${engineLabels[id]} is installed but does not start.`
  if (!install.supported)
    return `${engineLabels[id]} ${install.version} is too old: Ralph needs ${install.minVersion} or later.`
  return null
}

/** "Claude Code 2.1.328", "Built-in", or the bare name while the version is not known. */
export function engineName(setting: ProjectEngineSetting, installs?: EngineInstallInfo[]): string {
  const version = installs?.find((i) => i.id === setting.engine)?.version
  return version ? `${engineLabels[setting.engine]} ${version}` : engineLabels[setting.engine]
}
