import { useStudio } from '../state/store'
import { shortcutLabel } from '../useShortcuts'

/** Navigation. Later issues add the per-project panes (Chat, Timeline, Plan, Brainstorm) under the project. */
export function Sidebar() {
  const route = useStudio((s) => s.route)
  const current = useStudio((s) => s.current)
  const navigate = useStudio((s) => s.navigate)
  const projectOpen = route.page === 'project' && current

  return (
    <nav className="sidebar" aria-label="Main">
      <div className="brand">
        <span className="logo" aria-hidden>
          R
        </span>
        Ralph Studio
      </div>
      <button
        className={`nav-item ${route.page === 'projects' ? 'active' : ''}`}
        onClick={() => navigate({ page: 'projects' })}
        title={shortcutLabel('1')}
      >
        Projects
      </button>
      {projectOpen ? (
        <div className="nav-group">
          <div className="nav-label" title={current.path}>
            {current.name}
          </div>
          <button
            className="nav-item sub active"
            onClick={() => navigate({ page: 'project', projectId: current.id })}
          >
            Overview
          </button>
        </div>
      ) : null}
      <div className="spacer" />
      <button
        className={`nav-item ${route.page === 'settings' ? 'active' : ''}`}
        onClick={() => navigate({ page: 'settings' })}
        title={shortcutLabel(',')}
      >
        Settings
      </button>
    </nav>
  )
}
