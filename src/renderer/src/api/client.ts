import { AppError, type ErrorPayload } from '../../../shared/errors'
import type {
  CallName,
  EventEnvelope,
  EventName,
  EventPayload,
  Input,
  Output,
} from '../../../shared/api/contract'
import type { BridgeResult } from '../../../shared/api/bridge'

export interface CallOptions {
  /** Aborts the call: the client rejects at once, and a transport that takes the signal cancels its request. */
  signal?: AbortSignal
}

/** How calls and events travel: Electron IPC (through the preload) or the web host (HTTP + WebSocket). */
export interface Transport {
  call(name: string, input: unknown, options?: CallOptions): Promise<BridgeResult>
  onEvent(listener: (event: EventEnvelope) => void): () => void
  /** Connection state changes (the web transport reconnects its event socket; `lost` says why it cannot). */
  onStatus?(listener: StatusListener): () => void
}

/** Why the web host cannot be reached: it answers with a new token (it restarted), or not at all. */
export type HostLost = 'restarted' | 'unreachable'
export type StatusListener = (connected: boolean, lost?: HostLost) => void

export class ClientError extends AppError {
  constructor(payload: ErrorPayload) {
    super(payload.kind, payload.message, payload.details)
  }
}

const abortReason = (signal: AbortSignal): unknown =>
  signal.reason ?? new DOMException('The call was aborted.', 'AbortError')

/**
 * Settles with the transport's answer, or rejects as soon as the signal aborts: a transport that ignores the
 * signal (IPC cannot cancel a handler) still lets the caller move on, and its late answer is dropped.
 */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise
  if (signal.aborted) return Promise.reject(abortReason(signal))
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortReason(signal))
    signal.addEventListener('abort', onAbort, { once: true })
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort))
  })
}

/** The typed client the whole renderer uses; identical for both transports. */
export function createClient(transport: Transport) {
  return {
    async call<N extends CallName>(name: N, input: Input<N>, options: CallOptions = {}): Promise<Output<N>> {
      const { signal } = options
      if (signal?.aborted) throw abortReason(signal)
      const result = await untilAborted(transport.call(name, input, options), signal)
      if (!result.ok) throw new ClientError(result.error)
      return result.value as Output<N>
    },
    on<N extends EventName>(name: N, listener: (payload: EventPayload<N>) => void): () => void {
      return transport.onEvent((event) => {
        if (event.name === name) listener(event.payload as EventPayload<N>)
      })
    },
    onAny(listener: (event: EventEnvelope) => void): () => void {
      return transport.onEvent(listener)
    },
    onStatus(listener: StatusListener): () => void {
      if (!transport.onStatus) {
        listener(true)
        return () => {}
      }
      return transport.onStatus(listener)
    },
  }
}

export type Client = ReturnType<typeof createClient>
