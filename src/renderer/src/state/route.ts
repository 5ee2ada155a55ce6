export type Route = { page: 'projects' } | { page: 'project'; projectId: number } | { page: 'settings' }

/** Routes live in the URL hash so both hosts serve a single page (file:// in Electron, "/" on the web host). */
export function parseHash(hash: string): Route {
  const parts = hash.replace(/^#\/?/, '').split('/').filter(Boolean)
  if (parts[0] === 'settings') return { page: 'settings' }
  if (parts[0] === 'projects' && parts[1] && /^\d+$/.test(parts[1]))
    return { page: 'project', projectId: Number(parts[1]) }
  return { page: 'projects' }
}

export function routeHash(route: Route): string {
  if (route.page === 'settings') return '#/settings'
  if (route.page === 'project') return `#/projects/${route.projectId}`
  return '#/projects'
}
