import type { EventEnvelope } from '../../shared/api/contract'
import { checkEvent } from './dispatch'

export type EventListener = (event: EventEnvelope) => void

/** Fans contract events out to every connected client: IPC windows and WebSocket connections alike. */
export class EventBus {
  private readonly listeners = new Set<EventListener>()

  subscribe(listener: EventListener): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  emit(name: string, payload: unknown): void {
    const event = { name, payload: checkEvent(name, payload) }
    for (const listener of this.listeners) {
      try {
        listener(event)
      } catch {
        // A broken client connection must never stop the loop that emitted the event.
      }
    }
  }

  get size(): number {
    return this.listeners.size
  }
}
