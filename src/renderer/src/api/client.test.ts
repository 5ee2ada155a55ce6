import { describe, expect, it } from 'vitest'
import type { BridgeResult } from '../../../shared/api/bridge'
import { ClientError, createClient, type CallOptions, type Transport } from './client'

/** A transport whose calls stay pending until the test answers them. */
function pendingTransport() {
  const seen: { name: string; options?: CallOptions; answer(result: BridgeResult): void }[] = []
  const transport: Transport = {
    call: (name, _input, options) =>
      new Promise<BridgeResult>((resolve) => seen.push({ name, options, answer: resolve })),
    onEvent: () => () => {},
  }
  return { transport, seen }
}

describe('contract client', () => {
  it('returns the value, and throws a ClientError with the stable kind', async () => {
    const { transport, seen } = pendingTransport()
    const client = createClient(transport)
    const ok = client.call('projects.list', {})
    seen[0]!.answer({ ok: true, value: [] })
    expect(await ok).toEqual([])
    const bad = client.call('projects.get', { projectId: 9 })
    seen[1]!.answer({ ok: false, error: { kind: 'not-found', message: 'No project 9.' } })
    await expect(bad).rejects.toBeInstanceOf(ClientError)
    await expect(bad).rejects.toMatchObject({ kind: 'not-found', message: 'No project 9.' })
  })

  it('hands the AbortSignal to the transport and rejects as soon as it aborts', async () => {
    const { transport, seen } = pendingTransport()
    const client = createClient(transport)
    const controller = new AbortController()
    const call = client.call('settings.detectLocal', {}, { signal: controller.signal })
    expect(seen[0]!.options?.signal).toBe(controller.signal)
    controller.abort()
    await expect(call).rejects.toMatchObject({ name: 'AbortError' })
    // A late answer from a transport that could not cancel is dropped.
    seen[0]!.answer({ ok: true, value: [] })
  })

  it('does not start a call whose signal has already aborted', async () => {
    const { transport, seen } = pendingTransport()
    const client = createClient(transport)
    const controller = new AbortController()
    controller.abort(new Error('gone'))
    await expect(client.call('projects.list', {}, { signal: controller.signal })).rejects.toThrow('gone')
    expect(seen).toHaveLength(0)
  })
})
