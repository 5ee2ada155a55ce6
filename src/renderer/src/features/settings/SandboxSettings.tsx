import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import type { Project } from '../../../../shared/project'
import { useClient } from '../../app/ClientProvider'
import { FieldError } from '../../app/FieldError'
import { callKey, errorMessage, useCall } from '../../app/queries'
import { Switch } from '../../ui'

/** One project's sandbox: the .env switch, with the rest of its settings in words. */
function ProjectSandbox({ project }: { project: Project }) {
  const client = useClient()
  const queryClient = useQueryClient()
  const input = { projectId: project.id }
  const settings = useCall('sandbox.get', input)
  const save = useMutation({
    mutationFn: (allowEnvFiles: boolean) =>
      client.call('sandbox.set', { projectId: project.id, allowEnvFiles }),
    onSuccess: (next) => queryClient.setQueryData(callKey('sandbox.get', input), next),
  })
  const [pending, setPending] = useState<boolean | null>(null)
  const id = `env-files-${project.id}`
  const s = settings.data
  return (
    <li className="card sandbox-project">
      <div className="setting-row">
        <div>
          <p className="setting-label" id={`${id}-label`}>
            {project.name}
          </p>
          <p className="hint sandbox-path">{project.path}</p>
        </div>
        <Switch
          id={id}
          checked={pending ?? s?.allowEnvFiles ?? false}
          disabled={!s || save.isPending}
          onChange={(checked) => {
            // Shown at once (a controlled checkbox would flip back until the core answers).
            setPending(checked)
            save.mutate(checked, { onSettled: () => setPending(null) })
          }}
        >
          Commands may read .env files
        </Switch>
      </div>
      <p className="hint" id={`${id}-hint`}>
        {s
          ? `${s.allowEnvFiles ? 'The model’s commands can read this project’s .env files' : '.env files are hidden from the model’s commands'}; the file tools never show them. Network ${s.network ? 'on' : 'off'}. Limits per command: ${s.limits.memoryMb} MB memory, ${s.limits.processes} processes, ${s.limits.fileSizeMb} MB per file, ${s.limits.tmpMb} MB /tmp.`
          : null}
      </p>
      <FieldError error={settings.error} />
      <FieldError error={save.error} />
    </li>
  )
}

/** Per-project sandbox settings (`.ralph/config.json` "sandbox"), for the projects Ralph knows. */
export function SandboxSettings() {
  const projects = useCall('projects.list', {})
  if (projects.error) return <p className="field-error">{errorMessage(projects.error)}</p>
  if (projects.data && projects.data.length === 0) {
    return <p className="hint">Open a project first: these settings belong to each project.</p>
  }
  return (
    <ul className="sandbox-projects" aria-label="Sandbox settings per project">
      {(projects.data ?? []).map((p) => (
        <ProjectSandbox key={p.id} project={p} />
      ))}
    </ul>
  )
}
