/** The side panel's tabs on a project (DESIGN.md §15); the first one is the default. */
export const sidePanels = ['timeline', 'plan', 'queue'] as const
export type SidePanel = (typeof sidePanels)[number]
export const defaultSidePanel: SidePanel = 'timeline'

export type Route =
  | { page: 'projects' }
  /** `view: 'brainstorm'` is the project's brainstorm wizard (`#/project/<id>/brainstorm`). */
  | { page: 'project'; projectId: number; panel?: SidePanel; view?: 'brainstorm' }
  | { page: 'settings' }

const isPanel = (value: string | null): value is SidePanel => sidePanels.includes(value as SidePanel)

/**
 * Routes live in the URL hash so both hosts serve a single page (file:// in Electron, "/" on the web host):
 * `#/projects`, `#/project/<id>?panel=timeline|plan|queue`, `#/project/<id>/brainstorm`, `#/settings`. Anything
 * else is the project list.
 */
export function parseHash(hash: string): Route {
  const [path = '', query = ''] = hash.replace(/^#\/?/, '').split('?', 2)
  const parts = path.split('/').filter(Boolean)
  if (parts[0] === 'settings') return { page: 'settings' }
  // `#/projects/<id>` is the address earlier versions used; it still opens the project.
  if ((parts[0] === 'project' || parts[0] === 'projects') && parts[1] && /^[1-9]\d{0,15}$/.test(parts[1])) {
    if (parts[2] === 'brainstorm') return { page: 'project', projectId: Number(parts[1]), view: 'brainstorm' }
    const panel = new URLSearchParams(query).get('panel')
    const route: Route = { page: 'project', projectId: Number(parts[1]) }
    return isPanel(panel) ? { ...route, panel } : route
  }
  return { page: 'projects' }
}

export function routeHash(route: Route): string {
  if (route.page === 'settings') return '#/settings'
  if (route.page === 'project' && route.view === 'brainstorm')
    return `#/project/${route.projectId}/brainstorm`
  if (route.page === 'project')
    return `#/project/${route.projectId}${route.panel ? `?panel=${route.panel}` : ''}`
  return '#/projects'
}
