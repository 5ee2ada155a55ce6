import { AppError } from '../../shared/errors'
import type { Logger } from '../workspace'
import type { BaselineProgress } from './types'

/** What a caller of a long save can see and stop: the background baseline's progress and Cancel. */
export interface SaveHooks {
  signal?: AbortSignal
  onProgress?: (progress: BaselineProgress) => void
}

/** The save's hooks as staging gets them. */
export interface StageHooks extends SaveHooks {
  /** Where failures a first snapshot survives (and then leaves to git) are recorded. */
  log: Logger
}

export function cancelledError(): AppError {
  return new AppError('cancelled', 'The snapshot was cancelled; nothing was saved.')
}

/** Throws AppError('cancelled') once the signal has fired. */
export function throwIfCancelled(hooks: SaveHooks): void {
  if (hooks.signal?.aborted) throw cancelledError()
}

/**
 * Counts files read and reports them about ten times a second (a report per file would cost more than the
 * reading at 50,000 files), checking the signal as it goes. `step()` is true when the caller has run for 8 ms
 * without yielding: a background baseline must leave the event loop to the app's other calls.
 */
export function progressReporter(hooks: SaveHooks, total: number): { step(): boolean; yielded(): void } {
  let done = 0
  let lastReport = 0
  let lastYield = performance.now()
  if (hooks.onProgress) hooks.onProgress({ phase: 'reading', done: 0, total })
  return {
    step() {
      done++
      if ((done & 63) !== 0) return false
      throwIfCancelled(hooks)
      const now = performance.now()
      if (hooks.onProgress && now - lastReport >= 100) {
        lastReport = now
        hooks.onProgress({ phase: 'reading', done, total })
      }
      return now - lastYield >= 8
    },
    yielded() {
      lastYield = performance.now()
    },
  }
}
