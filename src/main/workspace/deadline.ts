// A time limit on a call that may never answer (a model, an MCP tool, a local server's probe).
//
// Why not `AbortSignal.any([signal, AbortSignal.timeout(ms)])`: on Node 20 the combined signal holds its sources
// only weakly, and nothing else holds the timeout signal, so it can be garbage-collected before it fires and the
// call then waits forever. Here a plain timer aborts a controller the timer itself holds, so the limit fires
// whatever the collector does; `done()` clears the timer (and the listener on the parent) once the call is over.

export interface Deadline {
  /** Aborted when the time is up (reason: a TimeoutError) or when a parent signal aborts (its reason). */
  readonly signal: AbortSignal
  /** True when the time ran out (not when a parent aborted). */
  timedOut(): boolean
  /** The call is over: the timer and the parents' listeners go. Safe to call twice. */
  done(): void
}

export function deadline(ms: number, ...parents: (AbortSignal | undefined)[]): Deadline {
  const controller = new AbortController()
  let expired = false
  const listeners: [AbortSignal, () => void][] = []
  const done = () => {
    clearTimeout(timer)
    for (const [parent, listener] of listeners.splice(0)) parent.removeEventListener('abort', listener)
  }
  const timer = setTimeout(() => {
    expired = true
    done()
    controller.abort(new DOMException(`The call did not answer within ${ms} ms.`, 'TimeoutError'))
  }, ms)
  // A limit alone must not keep a process alive (the CLI exits when its work is done).
  timer.unref?.()
  for (const parent of parents) {
    if (parent === undefined) continue
    if (parent.aborted) {
      done()
      controller.abort(parent.reason)
      break
    }
    const listener = () => {
      done()
      controller.abort(parent.reason)
    }
    parent.addEventListener('abort', listener, { once: true })
    listeners.push([parent, listener])
  }
  return { signal: controller.signal, timedOut: () => expired, done }
}

/** A signal that aborts after `ms` (for a call whose end the caller does not see, such as a fetch's body). */
export const timeoutSignal = (ms: number): AbortSignal => deadline(ms).signal
