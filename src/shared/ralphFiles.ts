/** Ralph's own state lives under .ralph/ in the project: counts and lists keep it apart from the user's files (#26). */
export const RALPH_DIR = '.ralph/'

/** True for a path under .ralph/ (Ralph's own files), false for the user's. */
export const isRalphOwnPath = (path: string): boolean => path === '.ralph' || path.startsWith(RALPH_DIR)

/** The user's items and Ralph's own, each in the order given (lists show Ralph's after the user's). */
export function splitOwn<T>(items: readonly T[], pathOf: (item: T) => string): { user: T[]; ralph: T[] } {
  const user: T[] = []
  const ralph: T[] = []
  for (const item of items) (isRalphOwnPath(pathOf(item)) ? ralph : user).push(item)
  return { user, ralph }
}
