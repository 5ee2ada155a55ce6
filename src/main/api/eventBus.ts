import type { EventInput, EventName, TypedEvent } from '../../shared/api/contract'
import type { Logger } from '../workspace/logFile'
import { checkEvent } from './dispatch'

/** A subscriber: `event.name` narrows `event.payload` to that event's contract type. */
export type EventListener = (event: TypedEvent) => void

/** Fans contract events out to every connected client: IPC windows and WebSocket connections alike. */
export class EventBus {
  private readonly listeners = new Set<EventListener>()

  constructor(private readonly logger: Logger) {}

  subscribe(listener: EventListener): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  emit<N extends EventName>(name: N, payload: EventInput<N>): void {
    // checkEvent parses the payload with the event's own schema: what it returns is that event's output.
    const event = { name, payload: checkEvent(name, payload) } as TypedEvent
    for (const listener of this.listeners) {
      try {
        listener(event)
      } catch (err) {
        // A broken client connection must never stop the loop that emitted the event; the log keeps why.
        this.logger.warn(`a listener of ${name} threw`, err)
      }
    }
  }

  get size(): number {
    return this.listeners.size
  }
}
