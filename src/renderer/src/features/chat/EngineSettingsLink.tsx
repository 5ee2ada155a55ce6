import { Settings } from 'lucide-react'
import { engineLabels } from '../../../../shared/api/engines'
import { routeHash } from '../../app/routes'
import type { CardEngine } from './engineTask'

/** An engine task's failure leads to the engines' settings (install, version, the project's choice), not the provider's. */
export function EngineSettingsLink({ engine }: { engine: CardEngine }) {
  return (
    <a
      className="btn btn-ghost btn-sm"
      href={routeHash({ page: 'settings' })}
      title={`Whether ${engineLabels[engine]} is installed and which version, or another engine for this project`}
    >
      <Settings size={13} aria-hidden />
      Check {engineLabels[engine]} in Settings → Engine
    </a>
  )
}
