import type { ReactNode } from 'react'
import { Banner } from '../ui'
import { useReturnFocus } from './focusOnRoute'
import { errorMessage, useCall } from './queries'
import type { Route } from './routes'
import { Sidebar } from './Sidebar'
import { ShortcutSheet } from './ShortcutSheet'
import { StatusBar } from './StatusBar'
import { connectionText, useConnection, type ConnectionState } from './useConnection'

/** A web host that restarted (or stopped) is said across the page, with the way back: its new address. */
function HostLostBanner({ connection }: { connection: ConnectionState }) {
  if (connection !== 'restarted' && connection !== 'unreachable') return null
  return (
    <Banner
      tone={connection === 'restarted' ? 'error' : 'warn'}
      className="app-banner"
      data-testid="host-lost"
      role="alert"
    >
      <strong>
        {connection === 'restarted' ? 'The web host restarted.' : 'The web host is not answering.'}
      </strong>{' '}
      {connectionText[connection].explain}
    </Banner>
  )
}

/** The frame around every screen: sidebar, main area, status bar, and the "?" shortcut sheet. */
export function AppShell({ route, children }: { route: Route; children: ReactNode }) {
  const info = useCall('app.info', {}, { staleTime: Infinity })
  const connection = useConnection()
  useReturnFocus(route)
  return (
    <div className="app">
      <Sidebar route={route} />
      <main className="main">
        <HostLostBanner connection={connection} />
        {info.error && connection !== 'restarted' ? (
          <Banner tone="error" className="app-banner">
            {errorMessage(info.error)}
          </Banner>
        ) : null}
        {children}
      </main>
      <StatusBar route={route} />
      <ShortcutSheet />
    </div>
  )
}
