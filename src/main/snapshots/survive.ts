import { isMissing, noteFailure, type Logger } from '../workspace'

// How the snapshot module turns a file-system error into a default (issue #25): an expected absence (the path is
// gone) stays quiet, as it is common on hot paths; anything else is recorded, then survived the same way.

/** `.catch(quietIfMissing(log, 'why', fallback))`: the fallback either way, a log line only when unexpected. */
export function quietIfMissing<T>(log: Logger, why: string, fallback: T): (err: unknown) => T {
  return (err) => {
    if (!isMissing(err)) noteFailure(log, why, err)
    return fallback
  }
}

/** Runs `fn`; when it throws, gives the fallback, recording why unless the path was simply missing. */
export function unlessMissing<T, F>(log: Logger, why: string, fn: () => T, fallback: F): T | F {
  try {
    return fn()
  } catch (err) {
    return quietIfMissing(log, why, fallback)(err)
  }
}

/** For callers that were given no logger: survived failures are dropped, as before the logger existed. */
export const unrecorded: Logger = { warn: () => undefined, error: () => undefined }
