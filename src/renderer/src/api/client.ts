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

/** How calls and events travel: Electron IPC (through the preload) or the web host (HTTP + WebSocket). */
export interface Transport {
  call(name: string, input: unknown): Promise<BridgeResult>
  onEvent(listener: (event: EventEnvelope) => void): () => void
  /** Connection state changes (the web transport reconnects its event socket). */
  onStatus?(listener: (connected: boolean) => void): () => void
}

export class ClientError extends AppError {
  constructor(payload: ErrorPayload) {
    super(payload.kind, payload.message, payload.details)
  }
}

/** The typed client the whole renderer uses; identical for both transports. */
export function createClient(transport: Transport) {
  return {
    async call<N extends CallName>(name: N, input: Input<N>): Promise<Output<N>> {
      const result = await transport.call(name, input)
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
    onStatus(listener: (connected: boolean) => void): () => void {
      if (!transport.onStatus) {
        listener(true)
        return () => {}
      }
      return transport.onStatus(listener)
    },
  }
}

export type Client = ReturnType<typeof createClient>
