import type { ErrorPayload } from '../errors'
import type { EventEnvelope } from './contract'

export type BridgeResult = { ok: true; value: unknown } | { ok: false; error: ErrorPayload }

/** What the preload exposes as `window.ralph` in the desktop app: the contract, nothing more. */
export interface RalphBridge {
  call(name: string, input: unknown): Promise<BridgeResult>
  onEvent(listener: (event: EventEnvelope) => void): () => void
}
