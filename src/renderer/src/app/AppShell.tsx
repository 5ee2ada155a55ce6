import type { ReactNode } from 'react'
import { Banner } from '../ui'
import { errorMessage, useCall } from './queries'
import type { Route } from './routes'
import { Sidebar } from './Sidebar'
import { StatusBar } from './StatusBar'

/** The frame around every screen: sidebar, main area, status bar. */
export function AppShell({ route, children }: { route: Route; children: ReactNode }) {
  const info = useCall('app.info', {}, { staleTime: Infinity })
  return (
    <div className="app">
      <Sidebar route={route} />
      <main className="main">
        {info.error ? (
          <Banner tone="error" className="app-banner">
            {errorMessage(info.error)}
          </Banner>
        ) : null}
        {children}
      </main>
      <StatusBar route={route} />
    </div>
  )
}
