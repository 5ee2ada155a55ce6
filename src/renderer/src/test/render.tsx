import { render } from '@testing-library/react'
import type { ReactNode } from 'react'
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
