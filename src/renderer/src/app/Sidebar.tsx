import { FolderOpen, Settings, type LucideIcon } from 'lucide-react'
import type { ReactNode } from 'react'
import { useRuns } from './runStore'
import { Tooltip, cx } from '../ui'
import { useCall } from './queries'
import { routeHash, type Route } from './routes'
import { shortcutLabel } from './shortcuts'

const MAX_PROJECTS = 8

/** A top-level page in the navigation, with its keyboard shortcut in a tooltip. */
function NavLink({
  page,
  current,
  shortcut,
  icon: Icon,
  children,
}: {
  page: 'projects' | 'settings'
  current: Route['page']
  shortcut: string
  icon: LucideIcon
  children: ReactNode
}) {
  return (
    <Tooltip side="right" content={<kbd className="tooltip-kbd">{shortcutLabel(shortcut)}</kbd>}>
      <a className="nav-item" href={routeHash({ page })} aria-current={current === page ? 'page' : undefined}>
        <Icon size={16} aria-hidden />
        {children}
      </a>
    </Tooltip>
  )
}

/** Navigation: the project list with the most recent projects under it, and Settings at the bottom. */
export function Sidebar({ route }: { route: Route }) {
  const projects = useCall('projects.list', {})
  const runs = useRuns((s) => s.runs)
  const recent = (projects.data ?? []).slice(0, MAX_PROJECTS)
  const currentId = route.page === 'project' ? route.projectId : null

  return (
    <nav className="sidebar" aria-label="Main">
      <div className="brand">
        <span className="logo" aria-hidden>
          R
        </span>
        Ralph Studio
      </div>
      <NavLink page="projects" current={route.page} shortcut="1" icon={FolderOpen}>
        Projects
      </NavLink>
      {recent.length ? (
        <ul className="nav-projects">
          {recent.map((p) => (
            <li key={p.id}>
              <a
                className={cx('nav-item', 'nav-project')}
                href={routeHash({ page: 'project', projectId: p.id })}
                aria-current={p.id === currentId ? 'page' : undefined}
                title={p.path}
              >
                <span className={cx('run-dot', runs[p.id]?.running && 'running')} aria-hidden />
                <span className="nav-project-name">{p.name}</span>
                {runs[p.id]?.running ? <span className="visually-hidden">(running)</span> : null}
              </a>
            </li>
          ))}
        </ul>
      ) : null}
      <div className="spacer" />
      <NavLink page="settings" current={route.page} shortcut="," icon={Settings}>
        Settings
      </NavLink>
    </nav>
  )
}
