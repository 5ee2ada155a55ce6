import type { RalphBridge } from '../../../shared/api/bridge'
import { createClient, type Transport } from './client'
import { createWebTransport } from './webTransport'

declare global {
  interface Window {
    ralph?: RalphBridge
  }
}

/** The desktop app's preload provides `window.ralph`; in a browser we talk to the web host. */
function pickTransport(): Transport {
  return window.ralph ?? createWebTransport()
}

export const client = createClient(pickTransport())
export { ClientError } from './client'
