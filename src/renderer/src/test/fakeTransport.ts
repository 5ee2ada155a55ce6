import type { EventEnvelope, EventName, EventPayload } from '../../../shared/api/contract'
import type { BridgeResult } from '../../../shared/api/bridge'
import type { CallOptions, Transport } from '../api'

type Handler = (input: unknown) => unknown

/**
 * A transport for component tests: calls are answered by handlers (a missing one fails the call as the core
 * would), every call is recorded, and the test emits contract events as the core would.
 */
export function createFakeTransport(handlers: Record<string, Handler> = {}) {
  const listeners = new Set<(event: EventEnvelope) => void>()
  const calls: { name: string; input: unknown; signal?: AbortSignal }[] = []
  const transport: Transport = {
    async call(name: string, input: unknown, options?: CallOptions): Promise<BridgeResult> {
      calls.push({ name, input, signal: options?.signal })
      const handler = handlers[name]
      if (!handler) return { ok: false, error: { kind: 'internal', message: `No handler for ${name}` } }
      try {
        return { ok: true, value: await handler(input) }
      } catch (err) {
        const details = (err as { details?: unknown }).details
        return { ok: false, error: { kind: 'invalid-input', message: (err as Error).message, details } }
      }
    },
    onEvent(listener) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
  }
  return {
    transport,
    calls,
    handlers,
    emit<N extends EventName>(name: N, payload: EventPayload<N>) {
      for (const l of listeners) l({ name, payload })
    },
    /** Any envelope, e.g. an event from a newer core that this renderer's contract does not know. */
    emitRaw(event: EventEnvelope) {
      for (const l of listeners) l(event)
    },
  }
}
