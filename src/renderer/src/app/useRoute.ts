import { useEffect, useLayoutEffect, useMemo, useSyncExternalStore } from 'react'
import { readStored, writeStored } from './localStore'
import { parseHash, routeHash, type Route } from './routes'
import { useConnection } from './useConnection'

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

/**
 * Where to go back to after the web host restarted: the page the window was on when its host went away, kept in
 * localStorage under a key without host, port or token (a restarted host has a new token; its port usually stays,
 * and with it the origin this storage belongs to).
 */
const RETURN_KEY = 'ralph.returnAfterRestart'

/** The route worth returning to, as its hash; null for the project list (where a new address lands anyway). */
export function returnHash(hash: string): string | null {
  const route = parseHash(hash)
  return route.page === 'projects' ? null : routeHash(route)
}

/** The hash to open at start: the saved one when the address names no page (a host's fresh address), once. */
export function takeReturnHash(currentHash: string, saved: string | null): string | null {
  if (currentHash.replace(/^#\/?/, '') !== '' || !saved) return null
  return returnHash(saved)
}

/**
 * Keeps the page across a web host restart: when this window's host goes away, the current page is saved; the
 * host's new address (it names no page) then opens that page again instead of the project list.
 */
export function useReturnAfterRestart(): void {
  const connection = useConnection()
  const route = useRoute()
  useLayoutEffect(() => {
    const saved = readStored(RETURN_KEY)
    if (!saved) return
    writeStored(RETURN_KEY, '')
    const hash = takeReturnHash(window.location.hash, saved)
    if (hash) navigate(parseHash(hash), { replace: true })
  }, [])
  const here = routeHash(route)
  useEffect(() => {
    if (connection === 'restarted' || connection === 'unreachable')
      writeStored(RETURN_KEY, returnHash(here) ?? '')
  }, [connection, here])
}
