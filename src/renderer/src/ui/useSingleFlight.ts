import { useCallback, useEffect, useRef, useState } from 'react'
import { noteFailure } from '../app/failures'

export interface SingleFlight<A extends unknown[]> {
  /** Starts the action unless it is already running (then the call is ignored). Never rejects. */
  run: (...args: A) => Promise<void>
  /** True from the first call until the action settles: the button that started it shows as busy and disabled. */
  busy: boolean
}

/**
 * The one guard every button that changes something goes through (#26): from the first click until its call
 * settles, further clicks do nothing. A ref holds the guard, not state, so two clicks in the same frame (a double
 * click lands before React re-renders) cannot both get through. The action reports its own failure (a mutation's
 * onError shows a toast), so a rejection here is only noted.
 */
export function useSingleFlight<A extends unknown[]>(action: (...args: A) => unknown): SingleFlight<A> {
  const running = useRef(false)
  const mounted = useRef(true)
  const [busy, setBusy] = useState(false)
  const latest = useRef(action)
  useEffect(() => {
    latest.current = action
  })
  useEffect(() => {
    mounted.current = true
    return () => {
      mounted.current = false
    }
  }, [])
  const run = useCallback(async (...args: A) => {
    if (running.current) return
    running.current = true
    setBusy(true)
    try {
      await latest.current(...args)
    } catch (err) {
      noteFailure('an action failed; its own handler shows the error to the user', err)
    } finally {
      running.current = false
      if (mounted.current) setBusy(false)
    }
  }, [])
  return { run, busy }
}
