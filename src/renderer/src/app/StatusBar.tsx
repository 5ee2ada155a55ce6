import { useRuns } from './runStore'
import { BaselineStatus } from '../features/timeline'
import { ShieldAlert, ShieldCheck } from 'lucide-react'
import { Tooltip, cx } from '../ui'
import { useCall } from './queries'
import type { Route } from './routes'
import { useConnection } from './useConnection'

/**
 * Connection · host · sandbox · project · provider/model · running task (DESIGN.md §15; cost arrives with the
 * chat). Without a sandbox it says so plainly (DESIGN.md §14).
 */
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
      {info.data?.sandbox.kind === 'none' ? (
        <Tooltip
          content={`${info.data.sandbox.reason ?? 'No sandbox here'}. The model's commands run only in projects where you allowed it (ralph sandbox allow).`}
        >
          <span className="status-item status-warning" tabIndex={0} data-testid="status-sandbox">
            <ShieldAlert size={14} aria-hidden /> Commands not sandboxed
          </span>
        </Tooltip>
      ) : info.data ? (
        <span className="status-item muted" data-testid="status-sandbox">
          <ShieldCheck size={14} aria-hidden /> Sandboxed ({info.data.sandbox.kind})
        </span>
      ) : null}
      {route.page === 'project' ? <ProjectStatus projectId={route.projectId} /> : <span className="sep" />}
      <span className="status-item" data-testid="status-provider">
        {effective ? `${effective.provider} · ${effective.model}` : 'No LLM provider configured'}
      </span>
    </footer>
  )
}

/** The open project's name, its background baseline snapshot, and its running task. */
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
      <BaselineStatus projectId={projectId} />
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
