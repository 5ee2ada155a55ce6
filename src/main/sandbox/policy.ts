// What a sandboxed command may see and change, as plain data; bwrap.ts and seatbelt.ts turn it into each
// platform's terms.

/** A folder or a file (sockets count as files): the two are covered differently. */
export interface SandboxPath {
  path: string
  kind: 'dir' | 'file'
}

/** A path the command must not see: a folder is covered by an empty one, a file (or socket) by /dev/null. */
export type HiddenPath = SandboxPath

export interface SandboxPolicy {
  /** Real path of the project root: the only place the command may write (besides its scratch home and /tmp). */
  projectDir: string
  /**
   * Paths inside the project that stay read-only: `.ralph/` (the harness files and snapshots.git) and the
   * user's `.git` (a hook or core.fsmonitor written there would run outside the sandbox at the next git call).
   */
  readOnly: SandboxPath[]
  /** Files inside those that the model may write (.ralph/plan.tsx, summary.md, status.txt), where they exist. */
  writable: string[]
  /** The app data folder, the user's credential files, agent sockets: invisible. Real paths. */
  hidden: HiddenPath[]
  /** The scratch folder that is HOME inside, writable. */
  home: string
  network: boolean
}

/** True when `path` is `dir` or inside it. */
export function isWithin(path: string, dir: string): boolean {
  return path === dir || path.startsWith(dir.endsWith('/') ? dir : `${dir}/`)
}
