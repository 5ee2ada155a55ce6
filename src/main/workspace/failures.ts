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
