import { useRuns } from '../features/project/runStore'
import { cx } from '../ui'
import { useCall } from './queries'
import type { Route } from './routes'
import { useConnection } from './useConnection'

/** Connection · host · project · provider/model · running task (DESIGN.md §15; cost arrives with the chat). */
export function StatusBar({ route }: { route: Route }) {
  const connected = useConnection()
  const info = useCall('app.info', {}, { staleTime: Infinity })
  const provider = useCall('settings.getProvider', {})
  const effective = provider.data?.effective

  return (
    <footer className="statusbar" aria-label="Status bar">
      <span className="status-item" role="status">
        <span className={cx('dot', connected ? 'ok' : 'bad')} aria-hidden />
        <span data-testid="connection">{connected ? 'Connected' : 'Reconnecting…'}</span>
      </span>
      {info.data ? (
        <span className="status-item muted">
          {info.data.host === 'web' ? 'Web host' : 'Desktop'} · v{info.data.version}
        </span>
      ) : null}
      {route.page === 'project' ? <ProjectStatus projectId={route.projectId} /> : <span className="sep" />}
      <span className="status-item" data-testid="status-provider">
        {effective ? `${effective.provider} · ${effective.model}` : 'No LLM provider configured'}
      </span>
    </footer>
  )
}

/** The open project's name and its running task. */
function ProjectStatus({ projectId }: { projectId: number }) {
  const project = useCall('projects.get', { projectId })
  const run = useRuns((s) => s.runs[projectId])
  return (
    <>
      {project.data ? (
        <span className="status-item status-project" title={project.data.path}>
          {project.data.name}
        </span>
      ) : null}
      <span className="sep" />
      {run?.running && run.task ? (
        <span className="status-item status-running">
          <span className="run-dot running" aria-hidden />
          Task {run.task} running
        </span>
      ) : null}
    </>
  )
}
