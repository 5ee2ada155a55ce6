import { useEffect } from 'react'
import { client } from './api'
import { Sidebar } from './components/Sidebar'
import { StatusBar } from './components/StatusBar'
import { ProjectPage } from './pages/ProjectPage'
import { ProjectsPage } from './pages/ProjectsPage'
import { SettingsPage } from './pages/SettingsPage'
import { useStudio } from './state/store'
import { useShortcuts } from './useShortcuts'

export function App() {
  const route = useStudio((s) => s.route)
  const fatal = useStudio((s) => s.fatal)

  useEffect(() => {
    const { loadInfo, loadProjects, loadProvider, syncRouteFromHash, setConnected } = useStudio.getState()
    void loadInfo()
    void loadProjects()
    void loadProvider()
    const offStatus = client.onStatus(setConnected)
    // Events keep every window in step: another window or the CLI may open projects or change settings.
    const offProjects = client.on('projects.changed', () => void useStudio.getState().loadProjects())
    const offSettings = client.on('settings.changed', () => void useStudio.getState().loadProvider())
    const offLoop = client.on('loop.event', ({ projectId, event }) =>
      useStudio.getState().onLoopEvent(projectId, event),
    )
    const offDelta = client.on('loop.delta', ({ projectId, text }) =>
      useStudio.getState().onLoopDelta(projectId, text),
    )
    const offFinished = client.on('loop.finished', ({ projectId, status, message }) => {
      const state = useStudio.getState()
      state.onLoopFinished(projectId, { status, message })
      void state.loadProjects()
      // The state cards (status, task count, phase) changed with the task.
      if (state.current?.id === projectId) void state.loadProject(projectId)
    })
    window.addEventListener('hashchange', syncRouteFromHash)
    return () => {
      offStatus()
      offProjects()
      offSettings()
      offLoop()
      offDelta()
      offFinished()
      window.removeEventListener('hashchange', syncRouteFromHash)
    }
  }, [])

  useShortcuts()

  return (
    <div className="app">
      <Sidebar />
      <main className="main" aria-live="polite">
        {fatal ? (
          <div className="banner error" role="alert">
            {fatal}
          </div>
        ) : null}
        {route.page === 'projects' && <ProjectsPage />}
        {route.page === 'project' && <ProjectPage projectId={route.projectId} />}
        {route.page === 'settings' && <SettingsPage />}
      </main>
      <StatusBar />
    </div>
  )
}
