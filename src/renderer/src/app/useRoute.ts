import { useMemo, useSyncExternalStore } from 'react'
import { parseHash, routeHash, type Route } from './routes'

const subscribe = (onChange: () => void) => {
  window.addEventListener('hashchange', onChange)
  return () => window.removeEventListener('hashchange', onChange)
}
const currentHash = () => window.location.hash

/** The current route. The hash is its only store, so back/forward, reloads and links all agree. */
export function useRoute(): Route {
  const hash = useSyncExternalStore(subscribe, currentHash)
  return useMemo(() => parseHash(hash), [hash])
}

/**
 * Goes to a route. `replace` swaps the history entry instead of adding one (switching a side-panel tab should not
 * fill Back with tab changes); replaceState fires no hashchange, so we announce it ourselves.
 */
export function navigate(route: Route, { replace = false }: { replace?: boolean } = {}): void {
  const hash = routeHash(route)
  if (window.location.hash === hash) return
  if (replace) {
    history.replaceState(history.state, '', hash)
    window.dispatchEvent(new HashChangeEvent('hashchange'))
  } else {
    window.location.hash = hash
  }
}
