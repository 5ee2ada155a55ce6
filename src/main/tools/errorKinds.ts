// Classifying the errors tools and the sandbox meet on the file system and /proc, so that the expected ones (a
// path that is not there, a folder we may not read, a process that already ended) are told apart from real
// failures, which are recorded or rethrown (issue #25; the helpers are src/main/workspace/failures.ts).
import { isMissing, noteFailure } from '../workspace/failures'
import type { Logger } from '../workspace/logFile'

/**
 * For callers outside tools/ and sandbox/ that do not pass their logger yet (ToolContext.logger and
 * ShellOptions.logger are optional while they are wired): what is survived there is not recorded.
 */
export const unrecorded: Logger = { warn: () => undefined, error: () => undefined }

const codeOf = (err: unknown): unknown => (err as NodeJS.ErrnoException | null)?.code

/** Permission refused: a folder the user cannot read, a cgroup the app may not write. */
export const isDenied = (err: unknown): boolean => codeOf(err) === 'EACCES' || codeOf(err) === 'EPERM'

/** A process (or its /proc entry) that is gone. */
export const isGone = (err: unknown): boolean => codeOf(err) === 'ESRCH' || isMissing(err)

/** For a read where absence is normal: a missing path gives `fallback`; any other failure is rethrown. */
export function ifMissing<T>(fallback: T): (err: unknown) => T {
  return (err) => {
    if (isMissing(err)) return fallback
    throw err
  }
}

/** For a read that is survived whatever happens: absence gives `fallback` quietly, other failures are noted first. */
export function unlessMissing<T>(log: Logger, why: string, fallback: T): (err: unknown) => T {
  return (err) => {
    if (!isMissing(err)) noteFailure(log, why, err)
    return fallback
  }
}

/**
 * For reads where a path that is not there or not readable simply counts as absent (the model may leave a
 * folder it cannot read behind); any other failure is rethrown.
 */
export function ifUnreadable<T>(fallback: T): (err: unknown) => T {
  return (err) => {
    if (isMissing(err) || isDenied(err)) return fallback
    throw err
  }
}

/**
 * For walkers and watchdogs that meet vanished and unreadable entries all the time: those give `fallback`
 * quietly (classified, not logged per entry); anything else is noted first.
 */
export function unlessExpected<T>(
  log: Logger,
  why: string,
  fallback: T,
  expected: (err: unknown) => boolean = (err) => isMissing(err) || isDenied(err),
): (err: unknown) => T {
  return (err) => {
    if (!expected(err)) noteFailure(log, why, err)
    return fallback
  }
}
