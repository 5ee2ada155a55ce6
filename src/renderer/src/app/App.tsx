import { BrainstormPage } from '../features/brainstorm'
import { ProjectPage } from '../features/project'
import { ProjectsPage } from '../features/projects'
import { SettingsPage } from '../features/settings'
import { AppShell } from './AppShell'
import { useShortcuts } from './shortcuts'
import { useReturnAfterRestart, useRoute } from './useRoute'

export function App() {
  const route = useRoute()
  useShortcuts()
  useReturnAfterRestart()
  return (
    <AppShell route={route}>
      {route.page === 'projects' && <ProjectsPage />}
      {route.page === 'project' && route.view === 'brainstorm' && (
        <BrainstormPage key={route.projectId} projectId={route.projectId} />
      )}
      {route.page === 'project' && route.view !== 'brainstorm' && (
        <ProjectPage key={route.projectId} projectId={route.projectId} panel={route.panel} />
      )}
      {route.page === 'settings' && <SettingsPage />}
    </AppShell>
  )
}
