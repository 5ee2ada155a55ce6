import { act, render, screen } from '@testing-library/react'
import { describe, expect, it } from 'vitest'
import { createClient, type HostLost } from '../api'
import { appInfo } from '../test/fixtures'
import { createFakeTransport } from '../test/fakeTransport'
import { AppShell } from './AppShell'
import { Providers, createQueryClient } from './Providers'

/** The shell over a transport whose connection the test sets, as the web transport reports it. */
function renderShell() {
  const fake = createFakeTransport({
    'app.info': () => appInfo(),
    'projects.list': () => [],
    'settings.getProvider': () => ({ effective: null }),
  })
  const listeners = new Set<(connected: boolean, lost?: HostLost) => void>()
  fake.transport.onStatus = (listener) => {
    listeners.add(listener)
    listener(true)
    return () => listeners.delete(listener)
  }
  render(
    <Providers client={createClient(fake.transport)} queryClient={createQueryClient()}>
      <AppShell route={{ page: 'projects' }}>
        <p>page</p>
      </AppShell>
    </Providers>,
  )
  return (connected: boolean, lost?: HostLost) => act(() => listeners.forEach((l) => l(connected, lost)))
}

describe('AppShell: a lost web host', () => {
  it('says nothing while connected or merely reconnecting', async () => {
    const set = renderShell()
    expect(await screen.findByText('Connected')).toBeTruthy()
    set(false)
    expect(screen.getByTestId('connection')).toHaveTextContent('Reconnecting…')
    expect(screen.queryByTestId('host-lost')).toBeNull()
  })

  it('names a restarted host and where its new address is, and a host that does not answer', async () => {
    const set = renderShell()
    await screen.findByText('Connected')
    set(false, 'unreachable')
    expect(screen.getByTestId('host-lost')).toHaveTextContent('The web host is not answering.')
    expect(screen.getByTestId('connection')).toHaveTextContent('Host not answering')
    set(false, 'restarted')
    const banner = screen.getByRole('alert')
    expect(banner).toHaveTextContent('The web host restarted.')
    expect(banner).toHaveTextContent('printed in the terminal where it was started')
    expect(screen.getByTestId('connection')).toHaveTextContent('Host restarted')
    set(true)
    expect(screen.queryByTestId('host-lost')).toBeNull()
  })
})
