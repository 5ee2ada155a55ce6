import { engineLabels } from '../../../../shared/api/engines'
import { routeHash } from '../../app/routes'
import { useEngines, useProjectEngine } from '../engines'
import './engineCard.css'

/**
 * Before a task is sent: the project's engine is an agent CLI this machine cannot run (not installed, not
 * starting, too old), so the task would fail at its first iteration. Says so and where to fix it; sending is
 * still allowed (the user may install it meanwhile).
 */
export function ComposerEngineWarning({ projectId }: { projectId: number }) {
  const setting = useProjectEngine(projectId).data
  const agent = setting !== undefined && setting.engine !== 'built-in'
  const installs = useEngines(projectId, agent).data?.installs
  if (!agent || !installs) return null
  const install = installs.find((i) => i.id === setting.engine)
  if (install?.installed && install.version !== null && install.supported) return null
  const label = engineLabels[setting.engine]
  const why = !install?.installed
    ? 'is not installed on this machine'
    : install.version === null
      ? 'is installed but does not start'
      : `${install.version} is older than Ralph needs (${install.minVersion})`
  return (
    <p className="composer-engine-warning" role="status" data-testid="composer-engine-missing">
      This project’s engine, {label}, {why}: a task would fail. Install it, or choose another engine in{' '}
      <a href={routeHash({ page: 'settings' })}>Settings → Engine</a>.
    </p>
  )
}
