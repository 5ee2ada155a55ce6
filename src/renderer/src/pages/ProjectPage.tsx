import { useEffect } from 'react'
import { TaskPanel } from '../components/TaskPanel'
import { useStudio } from '../state/store'

const statusText: Record<string, string> = {
  idle: 'Idle — no task yet',
  waiting: 'Waiting for your first message',
  running: 'A task is running',
  complete: 'Last task complete',
  failed: 'Last task failed',
}

export function ProjectPage({ projectId }: { projectId: number }) {
  const current = useStudio((s) => s.current)
  const error = useStudio((s) => s.currentError)
  const loadProject = useStudio((s) => s.loadProject)
  const forgetProject = useStudio((s) => s.forgetProject)
  const navigate = useStudio((s) => s.navigate)

  useEffect(() => {
    void loadProject(projectId)
  }, [projectId, loadProject])

  if (error) {
    return (
      <section className="page">
        <div className="banner error" role="alert">
          {error}
        </div>
        <button onClick={() => navigate({ page: 'projects' })}>Back to projects</button>
      </section>
    )
  }
  if (!current || current.id !== projectId) return <section className="page muted">Loading project…</section>

  const { state } = current
  return (
    <section className="page">
      <header className="page-header">
        <h1 data-testid="project-name">{current.name}</h1>
        <p className="muted path" data-testid="project-path">
          {current.path}
        </p>
      </header>
      {!state.exists ? (
        <div className="banner error" role="alert">
          This folder no longer exists. It may have been moved or deleted.
        </div>
      ) : null}
      <div className="grid">
        <div className="card stat">
          <div className="stat-label">State</div>
          <div className="stat-value" data-testid="project-status">
            {statusText[state.status] ?? state.status}
          </div>
        </div>
        <div className="card stat">
          <div className="stat-label">Tasks</div>
          <div className="stat-value">{state.taskCount}</div>
        </div>
        <div className="card stat">
          <div className="stat-label">Phase</div>
          <div className="stat-value">{state.phase ? state.phase.toUpperCase() : '—'}</div>
        </div>
        <div className="card stat">
          <div className="stat-label">Files</div>
          <div className="stat-value">
            {state.fileCount}
            {state.fileCountCapped ? '+' : ''}
          </div>
        </div>
        <div className="card stat">
          <div className="stat-label">Plan</div>
          <div className="stat-value">{state.hasPlan ? 'plan.tsx written' : 'No plan yet'}</div>
        </div>
        <div className="card stat">
          <div className="stat-label">Your git</div>
          <div className="stat-value">
            {state.isGitRepo ? 'Repository (never touched)' : 'Not a git repository'}
          </div>
        </div>
      </div>
      <TaskPanel projectId={current.id} />
      <div className="actions">
        <button
          onClick={() => {
            void forgetProject(current.id).then(() => navigate({ page: 'projects' }))
          }}
          title="Removes it from the list; the folder and its .ralph/ stay as they are."
        >
          Remove from recent
        </button>
      </div>
    </section>
  )
}
