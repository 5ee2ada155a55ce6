// What a sandboxed command may see and change, as plain data; bwrap.ts and seatbelt.ts turn it into each
// platform's terms.
import type { SandboxLimits } from './config'

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
   * Paths inside the project that stay read-only: `.ralph/` (the harness files) and the user's `.git` (a hook
   * or core.fsmonitor written there would run outside the sandbox at the next git call).
   */
  readOnly: SandboxPath[]
  /** Files inside those that the model may write (.ralph/plan.tsx, summary.md, status.txt), where they exist. */
  writable: string[]
  /**
   * Invisible: the app data folder, the user's credential files, agent sockets, system password files, and
   * inside the project `.ralph/snapshots.git`, credential stores and (unless allowed) `.env` files. Real paths.
   */
  hidden: HiddenPath[]
  /**
   * Folders replaced by an empty read-only one: every home folder (/home, /root, the user's own home). The
   * project, the scratch home and `homeAllowed` are bound back inside them.
   */
  hiddenRoots: string[]
  /** Toolchain folders of the user's home that commands may read (real paths that exist). */
  homeAllowed: string[]
  /**
   * The app's own install (its node_modules, build, resources, and the program running it), read-only wherever it
   * lives: under /tmp (an AppImage, a clone) or a home folder it would otherwise be gone. Real paths.
   */
  appInstall: string[]
  /** The scratch folder that is HOME inside, writable. */
  home: string
  network: boolean
  limits: SandboxLimits
  /** False on a bubblewrap too old for `--size`: tmpfs mounts then go without a size limit. */
  sizedTmpfs?: boolean
  /**
   * An agent engine's `.ralph/` (Linux): a writable copy of its files stands where `.ralph/` is, its folders bound
   * back read-only from the real one. Agents write files by rename (a temp file beside it, then rename), which a
   * read-only `.ralph/` with single writable files refuses; the runner copies back only the model's files.
   */
  ralphStage?: RalphStage
}

export interface RalphStage {
  /** The writable copy (outside the project). */
  stage: string
  /** The real `.ralph/` it stands in for. */
  ralphDir: string
  /** `.ralph/`'s folders (real paths), bound back read-only over the copy. */
  folders: string[]
}

/** True when `path` is `dir` or inside it. */
export function isWithin(path: string, dir: string): boolean {
  return path === dir || path.startsWith(dir.endsWith('/') ? dir : `${dir}/`)
}
