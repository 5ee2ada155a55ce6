import { csrf, httpPaths, type CallName, type EventEnvelope } from '../../../shared/api/contract'
import type { BridgeResult } from '../../../shared/api/bridge'
import type { Transport } from './client'

/** The per-launch CSRF value the host put into the page; only a page of its own origin can read it. */
function readCsrfToken(): string {
  return document.querySelector(`meta[name="${csrf.meta}"]`)?.getAttribute('content') ?? ''
}

/**
 * The web host transport: calls are POSTs, events arrive on a WebSocket that reconnects with backoff.
 * The token travels in the HttpOnly cookie the host set on first load, so the page never sees it; each call
 * also carries the page's CSRF value, which a cross-site page cannot know.
 */
export function createWebTransport(
  origin: string = window.location.origin,
  csrfToken: string = readCsrfToken(),
): Transport {
  const listeners = new Set<(event: EventEnvelope) => void>()
  const statusListeners = new Set<(connected: boolean) => void>()
  let connected = false
  let retry = 0

  const setConnected = (value: boolean) => {
    if (connected === value) return
    connected = value
    for (const l of statusListeners) l(value)
  }

  const connect = () => {
    const ws = new WebSocket(origin.replace(/^http/, 'ws') + httpPaths.events)
    ws.onopen = () => {
      retry = 0
      setConnected(true)
    }
    ws.onmessage = (message) => {
      try {
        const event = JSON.parse(String(message.data)) as EventEnvelope
        for (const l of listeners) l(event)
      } catch (err) {
        // A malformed frame is dropped; the events after it still arrive.
        console.warn('Ralph Studio: dropped an event frame that is not JSON.', err)
      }
    }
    ws.onclose = () => {
      setConnected(false)
      retry = Math.min(retry + 1, 6)
      setTimeout(connect, 250 * 2 ** retry)
    }
  }
  connect()

  return {
    async call(name, input, options): Promise<BridgeResult> {
      let res: Response
      try {
        res = await fetch(origin + httpPaths.call(name as CallName), {
          method: 'POST',
          headers: { 'content-type': 'application/json', [csrf.header]: csrfToken },
          credentials: 'same-origin',
          body: JSON.stringify(input ?? {}),
          // An aborted call stops its request; the client has already rejected it, so the result is dropped.
          signal: options?.signal,
        })
      } catch (err) {
        // The caller shows this message where the user acted; an aborted call's result is dropped anyway.
        if (!options?.signal?.aborted)
          console.warn(`Ralph Studio: the call ${name} did not reach the web host.`, err)
        return {
          ok: false,
          error: { kind: 'internal', message: 'Cannot reach Ralph Studio. Is `npm run web` still running?' },
        }
      }
      if (res.status === 401) {
        return {
          ok: false,
          error: {
            kind: 'unauthorized',
            message: 'This page has no valid token. Open the URL that `npm run web` printed.',
          },
        }
      }
      try {
        return (await res.json()) as BridgeResult
      } catch (err) {
        console.warn(`Ralph Studio: the answer to ${name} is not JSON (HTTP ${res.status}).`, err)
        return { ok: false, error: { kind: 'internal', message: `Unexpected response (${res.status}).` } }
      }
    },
    onEvent(listener) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    onStatus(listener) {
      statusListeners.add(listener)
      listener(connected)
      return () => statusListeners.delete(listener)
    },
  }
}
