import { readFileSync } from 'node:fs'
import type { Logger } from './logFile'

// The one way to turn an error into a default: every such place says why, and the log keeps it (issue #25).
// Expected absences (a file that may not exist) are not failures: `isMissing` and `readIfExists` name them.

/** The errors that mean "not there": a missing file or folder, or a path that runs through a file. */
export function isMissing(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | null)?.code
  return code === 'ENOENT' || code === 'ENOTDIR'
}

/** A file's text, or undefined when it does not exist; any other failure (permissions, a folder) is thrown. */
export function readIfExists(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8')
  } catch (err) {
    if (isMissing(err)) return undefined
    throw err
  }
}

/** Records a failure the caller has decided to survive, with why it is survivable. */
export function noteFailure(log: Logger, why: string, err: unknown): void {
  log.warn(why, err)
}

/** For promise chains: `.catch(fallbackTo(log, 'the tag list could not be read', []))`. */
export function fallbackTo<T>(log: Logger, why: string, fallback: T): (err: unknown) => T {
  return (err) => {
    noteFailure(log, why, err)
    return fallback
  }
}

/** Runs `fn`; when it throws, records why and gives the fallback instead. */
export function attempt<T, F>(log: Logger, why: string, fn: () => T, fallback: F): T | F {
  try {
    return fn()
  } catch (err) {
    noteFailure(log, why, err)
    return fallback
  }
}

/** `attempt` for async work. */
export async function attemptAsync<T, F>(
  log: Logger,
  why: string,
  fn: () => Promise<T>,
  fallback: F,
): Promise<T | F> {
  try {
    return await fn()
  } catch (err) {
    noteFailure(log, why, err)
    return fallback
  }
}

// Classifying file-system and process errors, so a fallback covers only what is expected (a path that is not
// there, a folder we may not read, a process that already ended) and anything else is recorded or rethrown.

const codeOf = (err: unknown): unknown => (err as NodeJS.ErrnoException | null)?.code

/** Permission refused: a folder the user cannot read, a cgroup the app may not write. */
export const isDenied = (err: unknown): boolean => codeOf(err) === 'EACCES' || codeOf(err) === 'EPERM'

/** A process (or its /proc entry) that is gone. */
export const isGone = (err: unknown): boolean => codeOf(err) === 'ESRCH' || isMissing(err)

const UNREADABLE = new Set(['EACCES', 'EPERM', 'ELOOP', 'ENXIO', 'EISDIR'])

/**
 * Not there, or not something we may read: missing, denied, a symlink refused by O_NOFOLLOW, a socket, a folder
 * where a file was expected. A walker or a scan skips these.
 */
export function isUnreadable(err: unknown): boolean {
  return isMissing(err) || UNREADABLE.has((codeOf(err) as string | undefined) ?? '')
}

/** Gives `fallback` for the errors `expected` accepts and rethrows any other. */
function onlyIf<F>(expected: (err: unknown) => boolean, fallback: F): (err: unknown) => F {
  return (err) => {
    if (expected(err)) return fallback
    throw err
  }
}

/** For a read where absence is normal: `.catch(ifMissing(null))`; any other failure is rethrown. */
export const ifMissing = <F>(fallback: F): ((err: unknown) => F) => onlyIf(isMissing, fallback)

/** `ifMissing` that also covers a path we may not read (the model may leave such a folder behind). */
export const ifMissingOrDenied = <F>(fallback: F): ((err: unknown) => F) =>
  onlyIf((err) => isMissing(err) || isDenied(err), fallback)

/** `ifMissing` that also covers whatever cannot be read (`isUnreadable`). */
export const ifUnreadable = <F>(fallback: F): ((err: unknown) => F) => onlyIf(isUnreadable, fallback)

/** For a read survived whatever happens: absence gives `fallback` quietly, other failures are noted first. */
export function unlessMissing<T>(log: Logger, why: string, fallback: T): (err: unknown) => T {
  return unlessExpected(log, why, fallback, isMissing)
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

/** Runs `fn`; when it throws, gives the fallback, recording why unless the path was simply missing. */
export function attemptUnlessMissing<T, F>(log: Logger, why: string, fn: () => T, fallback: F): T | F {
  try {
    return fn()
  } catch (err) {
    return unlessMissing(log, why, fallback)(err)
  }
}

const UNWRITABLE = new Set(['EROFS', 'ENOSPC', 'EDQUOT', 'EEXIST', 'ENOTEMPTY', 'EBUSY'])

/**
 * A write, rename or removal the file system refused for an expected reason: the place is gone or not ours
 * (`isUnreadable`), read-only, full, or (removing a folder) not empty. A best-effort cache or clean-up skips these.
 */
export function isUnwritable(err: unknown): boolean {
  return isUnreadable(err) || UNWRITABLE.has((codeOf(err) as string | undefined) ?? '')
}

/**
 * For a promise whose failure is reported where it is awaited: `p.catch(reportedElsewhere)` only keeps that
 * failure from also counting as an unhandled rejection.
 */
export function reportedElsewhere(err: unknown): void {
  void err
}
