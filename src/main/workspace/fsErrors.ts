import { isMissing } from './failures'

// Classifying file-system errors, so a fallback covers only what is expected and anything else is thrown (#25).

const UNREADABLE = new Set(['EACCES', 'EPERM', 'ELOOP', 'ENXIO', 'EISDIR'])

/**
 * Not there, or not something we may read: missing, denied, a symlink refused by O_NOFOLLOW, a socket, a folder
 * where a file was expected. A walker or a scan skips these.
 */
export function isUnreadable(err: unknown): boolean {
  return isMissing(err) || UNREADABLE.has((err as NodeJS.ErrnoException | null)?.code ?? '')
}

/** For promise chains: `.catch(orIfMissing(null))` gives the fallback when the file is not there, else rethrows. */
export function orIfMissing<F>(fallback: F): (err: unknown) => F {
  return (err) => {
    if (isMissing(err)) return fallback
    throw err
  }
}

/** `orIfMissing` that also covers what cannot be read (`isUnreadable`). */
export function orIfUnreadable<F>(fallback: F): (err: unknown) => F {
  return (err) => {
    if (isUnreadable(err)) return fallback
    throw err
  }
}
