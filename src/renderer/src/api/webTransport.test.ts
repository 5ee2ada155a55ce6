import { describe, expect, it, vi } from 'vitest'
import type { HostLost } from './client'
import {
  ATTEMPTS_BEFORE_UNREACHABLE,
  HOST_RESTARTED_MESSAGE,
  createWebTransport,
  type WebTransportDeps,
} from './webTransport'

/** A socket the test opens and closes; each `new` is one connection attempt. */
class FakeSocket {
  static all: FakeSocket[] = []
  onopen: (() => void) | null = null
  onclose: (() => void) | null = null
  onmessage: ((m: { data: string }) => void) | null = null
  constructor(public url: string) {
    FakeSocket.all.push(this)
  }
}

/** The transport over fakes: `host` says how the host answers a call (a status, or 'down' for no answer). */
function setup(host: { answer: number | 'down' }) {
  FakeSocket.all = []
  const timers: (() => void)[] = []
  const deps: WebTransportDeps = {
    WebSocket: FakeSocket as unknown as WebTransportDeps['WebSocket'],
    fetch: vi.fn(async () => {
      if (host.answer === 'down') throw new TypeError('Failed to fetch')
      return new Response(JSON.stringify({ ok: true, value: {} }), { status: host.answer })
    }) as unknown as typeof fetch,
    setTimeout: (fn) => void timers.push(fn),
  }
  const transport = createWebTransport('http://127.0.0.1:5178', 'csrf', deps)
  const seen: { connected: boolean; lost?: HostLost }[] = []
  transport.onStatus!((connected, lost) => seen.push({ connected, lost }))
  const last = () => seen.at(-1)!
  /** The current attempt fails; resolves once the transport has looked at why. */
  const fail = async () => {
    const before = timers.length
    FakeSocket.all.at(-1)!.onclose!()
    await vi.waitFor(() => expect(timers.length > before || last().lost === 'restarted').toBe(true))
  }
  /** The next attempt starts (its backoff timer fires). */
  const retry = () => timers.shift()!()
  return { transport, fail, retry, last, timers }
}

describe('web transport: a lost host', () => {
  it('says the host restarted when it answers 401, and stops trying the old token', async () => {
    const host = { answer: 200 as number | 'down' }
    const t = setup(host)
    FakeSocket.all[0]!.onopen!()
    expect(t.last()).toEqual({ connected: true, lost: undefined })
    host.answer = 401
    await t.fail()
    expect(t.last()).toEqual({ connected: false, lost: 'restarted' })
    expect(t.timers).toHaveLength(0)
  })

  it('says the host is not answering only after a few failed attempts', async () => {
    const t = setup({ answer: 'down' })
    FakeSocket.all[0]!.onopen!()
    for (let attempt = 1; attempt < ATTEMPTS_BEFORE_UNREACHABLE; attempt++) {
      await t.fail()
      expect(t.last()).toEqual({ connected: false, lost: undefined })
      t.retry()
    }
    await t.fail()
    expect(t.last()).toEqual({ connected: false, lost: 'unreachable' })
    // It keeps trying, and a host that comes back is connected again.
    t.retry()
    FakeSocket.all.at(-1)!.onopen!()
    expect(t.last()).toEqual({ connected: true, lost: undefined })
  })

  it('turns a 401 answer to a call into the restarted-host message', async () => {
    const t = setup({ answer: 401 })
    const result = await t.transport.call('projects.list', {})
    expect(result).toEqual({ ok: false, error: { kind: 'unauthorized', message: HOST_RESTARTED_MESSAGE } })
    expect(t.last()).toEqual({ connected: false, lost: 'restarted' })
  })
})
