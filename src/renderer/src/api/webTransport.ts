import { csrf, httpPaths, type CallName, type EventEnvelope } from '../../../shared/api/contract'
import type { BridgeResult } from '../../../shared/api/bridge'
import type { HostLost, StatusListener, Transport } from './client'

/** The per-launch CSRF value the host put into the page; only a page of its own origin can read it. */
function readCsrfToken(): string {
  return document.querySelector(`meta[name="${csrf.meta}"]`)?.getAttribute('content') ?? ''
}

/** What a restarted host's answer to this page means, in the words the call's caller shows. */
export const HOST_RESTARTED_MESSAGE =
  'The web host was restarted, so this page’s access ended. Open the new address (it has a new token) that the host printed in the terminal where it was started.'
const HOST_UNREACHABLE_MESSAGE =
  'Cannot reach the web host: it may have stopped. When it runs again, open the address it printed in the terminal where it was started.'

/** Failed connection attempts in a row before the host counts as not answering (about 3.5 s of backoff). */
export const ATTEMPTS_BEFORE_UNREACHABLE = 3

/** What the transport reaches the world through; tests give fakes. */
export interface WebTransportDeps {
  WebSocket: { new (url: string): WebSocket }
  fetch: typeof fetch
  setTimeout: (fn: () => void, ms: number) => unknown
}

const browserDeps = (): WebTransportDeps => ({
  WebSocket: window.WebSocket,
  fetch: window.fetch.bind(window),
  setTimeout: (fn, ms) => window.setTimeout(fn, ms),
})

/**
 * The web host transport: calls are POSTs, events arrive on a WebSocket that reconnects with backoff.
 * The token travels in the HttpOnly cookie the host set on first load, so the page never sees it; each call
 * also carries the page's CSRF value, which a cross-site page cannot know.
 *
 * When the socket will not come back, the status says why: a host that answers 401 was restarted (its token is
 * new, and this page cannot learn it: reconnecting stops), one that does not answer after a few attempts may
 * have stopped.
 */
export function createWebTransport(
  origin: string = window.location.origin,
  csrfToken: string = readCsrfToken(),
  deps: WebTransportDeps = browserDeps(),
): Transport {
  const listeners = new Set<(event: EventEnvelope) => void>()
  const statusListeners = new Set<StatusListener>()
  let connected = false
  let lost: HostLost | undefined
  let retry = 0
  let failures = 0

  const setStatus = (value: boolean, why: HostLost | undefined) => {
    if (connected === value && lost === why) return
    connected = value
    lost = why
    for (const l of statusListeners) l(connected, lost)
  }

  const post = (name: CallName, input: unknown, signal?: AbortSignal) =>
    deps.fetch(origin + httpPaths.call(name), {
      method: 'POST',
      headers: { 'content-type': 'application/json', [csrf.header]: csrfToken },
      credentials: 'same-origin',
      body: JSON.stringify(input ?? {}),
      signal,
    })

  /** Why the socket closed: the host refuses this page's token (restarted), or does not answer. */
  const diagnose = async (): Promise<HostLost | undefined> => {
    try {
      const res = await post('app.info', {})
      return res.status === 401 ? 'restarted' : undefined
    } catch (err) {
      if (!(err instanceof TypeError)) throw err
      // A network error: nothing listens on the port (yet).
      return failures >= ATTEMPTS_BEFORE_UNREACHABLE ? 'unreachable' : undefined
    }
  }

  const connect = () => {
    const ws = new deps.WebSocket(origin.replace(/^http/, 'ws') + httpPaths.events)
    ws.onopen = () => {
      retry = 0
      failures = 0
      setStatus(true, undefined)
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
      failures += 1
      setStatus(false, lost)
      void diagnose().then(
        (why) => {
          setStatus(false, why)
          // A restarted host will never take this page's token again: only a new address helps.
          if (why === 'restarted') return
          retry = Math.min(retry + 1, 6)
          deps.setTimeout(connect, 250 * 2 ** retry)
        },
        (err: unknown) => {
          console.warn('Ralph Studio: could not tell why the event socket closed.', err)
          deps.setTimeout(connect, 250 * 2 ** retry)
        },
      )
    }
  }
  connect()

  return {
    async call(name, input, options): Promise<BridgeResult> {
      let res: Response
      try {
        // An aborted call stops its request; the client has already rejected it, so the result is dropped.
        res = await post(name as CallName, input, options?.signal)
      } catch (err) {
        // The caller shows this message where the user acted; an aborted call's result is dropped anyway.
        if (!options?.signal?.aborted)
          console.warn(`Ralph Studio: the call ${name} did not reach the web host.`, err)
        return { ok: false, error: { kind: 'internal', message: HOST_UNREACHABLE_MESSAGE } }
      }
      if (res.status === 401) {
        setStatus(false, 'restarted')
        return { ok: false, error: { kind: 'unauthorized', message: HOST_RESTARTED_MESSAGE } }
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
      listener(connected, lost)
      return () => statusListeners.delete(listener)
    },
  }
}
