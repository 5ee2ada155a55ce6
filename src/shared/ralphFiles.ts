/** Ralph's own state lives under .ralph/ in the project: counts and lists keep it apart from the user's files (#26). */
export const RALPH_DIR = '.ralph/'

/** True for a path under .ralph/ (Ralph's own files), false for the user's. */
export const isRalphOwnPath = (path: string): boolean => path === '.ralph' || path.startsWith(RALPH_DIR)
