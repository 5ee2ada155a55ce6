import type { RalphBridge } from '../../../shared/api/bridge'
import { createClient, type Client, type Transport } from './client'
import { createWebTransport } from './webTransport'

declare global {
  interface Window {
    ralph?: RalphBridge
  }
}

/**
 * The desktop app's preload provides `window.ralph`; in a browser we talk to the web host. Called once, from
 * main.tsx: importing this module creates nothing (tests give the app a fake transport instead).
 */
export function createDefaultClient(): Client {
  return createClient(window.ralph ? bridgeTransport(window.ralph) : createWebTransport())
}

/**
 * The preload's bridge, given only what it can carry: contextBridge clones arguments, and an AbortSignal cannot
 * be cloned, so the call options stay on this side (the client still stops waiting when a call is aborted).
 */
function bridgeTransport(bridge: RalphBridge): Transport {
  return {
    call: (name, input) => bridge.call(name, input),
    onEvent: (listener) => bridge.onEvent(listener),
  }
}

export {
  ClientError,
  createClient,
  type CallOptions,
  type Client,
  type HostLost,
  type Transport,
} from './client'
