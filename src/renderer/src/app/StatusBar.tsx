import { useRuns } from './runStore'
import { BaselineStatus } from '../features/timeline'
import { useEngineStatus } from '../features/engines'
import { ShieldAlert, ShieldCheck } from 'lucide-react'
import { Tooltip, cx } from '../ui'
import { useCall } from './queries'
import type { Route } from './routes'
import { connectionText, useConnection } from './useConnection'

/**
 * Connection · host · sandbox · project · provider/model · running task (DESIGN.md §15; cost arrives with the
 * chat). Without a sandbox it says so plainly (DESIGN.md §14). Its items are information, not tab stops (issue 37):
 * their explanations show on hover, and the two a person must act on (no sandbox, no model) carry theirs as text
 * a screen reader reads with the item. Only controls (the baseline's Cancel) take focus.
 */
export function StatusBar({ route }: { route: Route }) {
  const connection = useConnection()
  const info = useCall('app.info', {}, { staleTime: Infinity })
  const provider = useCall('settings.getProvider', {})
  const effective = provider.data?.effective
  // A project whose engine is Claude Code or Codex: that agent runs its tasks, not the provider.
  const engine = useEngineStatus(route.page === 'project' ? route.projectId : null)
  const connected = connection === 'connected'
  const words = connectionText[connection]

  return (
    <footer className="statusbar" aria-label="Status bar">
      <Tooltip content={words.explain}>
        <span className="status-item status-connection" role="status">
          <span className={cx('dot', connected ? 'ok' : 'bad')} aria-hidden />
          <span data-testid="connection">{words.label}</span>
        </span>
      </Tooltip>
      {info.data ? (
        <Tooltip
          content={
            info.data.host === 'web'
              ? 'This page talks to the Ralph Studio web host running on this machine (127.0.0.1 only).'
              : 'The Ralph Studio desktop app.'
          }
        >
          <span className="status-item status-host muted">
            {info.data.host === 'web' ? 'Web host' : 'Desktop'} · v{info.data.version}
          </span>
        </Tooltip>
      ) : null}
      {info.data?.sandbox.kind === 'none' ? (
        <Tooltip content={unsandboxed(info.data.sandbox.reason)}>
          <span className="status-item status-warning" data-testid="status-sandbox">
            <ShieldAlert size={14} aria-hidden /> <span>Commands not sandboxed</span>
            <span className="visually-hidden">: {unsandboxed(info.data.sandbox.reason)}</span>
          </span>
        </Tooltip>
      ) : info.data ? (
        <Tooltip
          content={`The commands the model runs are fenced in by ${info.data.sandbox.kind}: they can write only in the project, and your home folder and credentials stay hidden from them, and .env files too unless the project allows them.`}
        >
          <span className="status-item muted" data-testid="status-sandbox">
            <ShieldCheck size={14} aria-hidden /> Sandboxed ({info.data.sandbox.kind})
          </span>
        </Tooltip>
      ) : null}
      {route.page === 'project' ? <ProjectStatus projectId={route.projectId} /> : <span className="sep" />}
      <Tooltip
        content={
          engine
            ? 'The agent that runs this project’s tasks, inside Ralph’s sandbox. Change it with the Engine button in the project header.'
            : effective
              ? 'The LLM provider and model that run tasks. Change them in Settings.'
              : NO_MODEL
        }
      >
        <span className="status-item status-provider" data-testid="status-provider">
          {engine ??
            (effective ? (
              `${effective.provider} · ${effective.model}`
            ) : (
              <>
                <span>No LLM provider configured</span>
                <span className="visually-hidden">: {NO_MODEL}</span>
              </>
            ))}
        </span>
      </Tooltip>
    </footer>
  )
}

const NO_MODEL = 'No model to run tasks with yet. Choose a provider in Settings.'

/** Why the model's commands are not fenced in, and what runs anyway. */
const unsandboxed = (reason: string | null): string =>
  `${reason ?? 'No sandbox here'}. The model's commands run only in projects where you allowed running them without one.`

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
