import { render } from '@testing-library/react'
import type { ReactNode } from 'react'
import { VirtuosoMockContext } from 'react-virtuoso'
import { createClient } from '../api'
import { Providers, createQueryClient } from '../app/Providers'
import { createFakeTransport } from './fakeTransport'

/** Renders UI inside the app's real providers, over a fake transport. */
export function renderWithProviders(ui: ReactNode, handlers: Parameters<typeof createFakeTransport>[0] = {}) {
  const fake = createFakeTransport(handlers)
  const client = createClient(fake.transport)
  const queryClient = createQueryClient()
  const result = render(
    <Providers client={client} queryClient={queryClient}>
      {ui}
    </Providers>,
  )
  return { ...result, ...fake, client, queryClient }
}

/**
 * Renders UI holding virtual lists: happy-dom lays nothing out, so the mock context gives the lists a viewport
 * (`viewport`, the chat's by default) and they render their items.
 */
export function renderInViewport(
  ui: ReactNode,
  handlers: Parameters<typeof createFakeTransport>[0] = {},
  viewport = { viewportHeight: 3000, itemHeight: 100 },
) {
  return renderWithProviders(
    <VirtuosoMockContext.Provider value={viewport}>{ui}</VirtuosoMockContext.Provider>,
    handlers,
  )
}

/** What the UI sent with its first `name` call to the fake core (undefined before it has). */
export const sentInput = (view: { calls: { name: string; input: unknown }[] }, name: string): unknown =>
  view.calls.find((c) => c.name === name)?.input
