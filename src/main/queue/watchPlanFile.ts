import { watch, type FSWatcher } from 'node:fs'
import { readdir, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { isMissing, isUnreadable } from '../workspace'

/**
 * Notices changes to a project's `.ralph/` that no core call announced: the CLI, `ralph build` in a terminal, the
 * model's shell, a rollback that restored the file, a hand edit. It watches the folder itself (non-recursive, never
 * the whole project) and `.ralph/notifications/`, waits for a burst of writes to settle, then reports only what
 * really changed — a file's identity (inode, size, mtime) is compared, so an atomic replace by rename counts and a
 * stray temp file does not. Where `fs.watch` fails (no inotify slots, an odd file system) it polls instead, slower.
 */

/** What changed: `.ralph/plan.jsonl`, `.ralph/notifications/*`, `.ralph/plan.tsx`. */
export type RalphChange = 'queue' | 'notifications' | 'plan'

export interface RalphWatchOptions {
  /** How long writes must settle before a change is reported (ms). */
  debounceMs?: number
  /** The fallback poll's interval when watching fails (ms). */
  pollMs?: number
  /** Told once when watching fails and polling takes over. */
  onFallback?(err: unknown): void
  /** `fs.watch`; a test passes one that fails as an exhausted inotify limit does. */
  watch?: typeof watch
}

export interface RalphWatch {
  /** Resolves once the current files are known: a change after that is reported. */
  readonly ready: Promise<void>
  /** 'watch' while fs.watch works, 'poll' after it failed, 'closed' after close(). */
  readonly mode: 'watch' | 'poll' | 'closed'
  /**
   * Runs `write` without reporting what it changes (the core announces its own writes): reports wait until it
   * ends, then the files as it left them are taken as known.
   */
  quietly<T>(write: () => Promise<T>): Promise<T>
  close(): void
}

const DEBOUNCE_MS = 150
/** A change is reported at most this many debounce delays after the first event of a burst. */
const MAX_WAIT_FACTOR = 6
const POLL_MS = 4000

type Signatures = Record<RalphChange, string>

/** A file's identity; 'none' when it is not there, the error's code when it cannot be read (a change too). */
const fileSignature = async (path: string): Promise<string> => {
  try {
    const s = await stat(path)
    return `${s.ino}:${s.size}:${s.mtimeMs}`
  } catch (err) {
    return unreadableSignature(err)
  }
}

function unreadableSignature(err: unknown): string {
  if (isMissing(err)) return 'none'
  return `unreadable:${(err as NodeJS.ErrnoException | null)?.code ?? String(err)}`
}

/** The notifications folder's entries with their identities: a new, removed or rewritten note changes it. */
async function folderSignature(dir: string): Promise<string> {
  let names: string[]
  try {
    names = (await readdir(dir)).sort()
  } catch (err) {
    return unreadableSignature(err)
  }
  const parts = await Promise.all(names.map(async (n) => `${n}=${await fileSignature(join(dir, n))}`))
  return parts.join('|')
}

/** The folder's inode, or null when it is not a folder we can see (then its parent is watched for it). */
async function folderInode(dir: string): Promise<number | null> {
  try {
    const s = await stat(dir)
    return s.isDirectory() ? s.ino : null
  } catch (err) {
    if (isUnreadable(err)) return null
    throw err
  }
}

/** The folders watched: the project (until .ralph/ exists), .ralph/, .ralph/notifications/. */
type WatchKey = 'root' | 'ralph' | 'notes'

/** What reported as changed between two reads. */
export function changedSince(known: Signatures, now: Signatures): Set<RalphChange> {
  const changed = new Set<RalphChange>()
  for (const key of Object.keys(now) as RalphChange[]) if (now[key] !== known[key]) changed.add(key)
  return changed
}

/**
 * Which watchers to stop and start, given the ones running (with the inode each watches) and the folders' inodes
 * now: a replaced folder is watched again, the project only while .ralph/ is missing. Stops come first, in order.
 */
export function armSteps(
  watching: ReadonlyMap<WatchKey, number | null>,
  ralphIno: number | null,
  notesIno: number | null,
): { stop: WatchKey[]; start: { key: WatchKey; ino: number | null }[] } {
  const stop: WatchKey[] = []
  const running = new Map(watching)
  const restart = (key: WatchKey, ino: number | null) => {
    if (running.has(key) && running.get(key) !== ino) {
      stop.push(key)
      running.delete(key)
    }
  }
  restart('ralph', ralphIno)
  restart('notes', notesIno)
  if (ralphIno === null) return { stop, start: running.has('root') ? [] : [{ key: 'root', ino: null }] }
  if (running.has('root')) stop.push('root')
  const start: { key: WatchKey; ino: number | null }[] = []
  if (!running.has('ralph')) start.push({ key: 'ralph', ino: ralphIno })
  if (notesIno !== null && !running.has('notes')) start.push({ key: 'notes', ino: notesIno })
  return { stop, start }
}

export function watchRalphFolder(
  projectDir: string,
  onChange: (changes: ReadonlySet<RalphChange>) => void,
  options: RalphWatchOptions = {},
): RalphWatch {
  return new RalphFolderWatch(projectDir, onChange, options)
}

class RalphFolderWatch implements RalphWatch {
  readonly ready: Promise<void>
  private state: RalphWatch['mode'] = 'watch'
  private known: Signatures = { queue: 'none', notifications: 'none', plan: 'none' }
  // One watcher per folder, with the inode it watches (a folder replaced by a rollback is watched again).
  private readonly watchers = new Map<WatchKey, { watcher: FSWatcher; ino: number | null }>()
  private timer: NodeJS.Timeout | null = null
  private pendingSince = 0
  private poller: NodeJS.Timeout | null = null
  private quiet = 0
  private flushing: Promise<void> = Promise.resolve()
  private readonly debounceMs: number
  private readonly pollMs: number
  private readonly dirs: Record<WatchKey, string>
  private readonly paths: { queue: string; plan: string }

  constructor(
    projectDir: string,
    private readonly onChange: (changes: ReadonlySet<RalphChange>) => void,
    private readonly options: RalphWatchOptions,
  ) {
    this.debounceMs = options.debounceMs ?? DEBOUNCE_MS
    this.pollMs = options.pollMs ?? POLL_MS
    const ralphDir = join(projectDir, '.ralph')
    this.dirs = { root: projectDir, ralph: ralphDir, notes: join(ralphDir, 'notifications') }
    this.paths = { queue: join(ralphDir, 'plan.jsonl'), plan: join(ralphDir, 'plan.tsx') }
    this.ready = (async () => {
      this.known = await this.read()
      try {
        await this.arm()
      } catch (err) {
        this.fallBack(err)
      }
    })()
  }

  get mode(): RalphWatch['mode'] {
    return this.state
  }

  async quietly<T>(write: () => Promise<T>): Promise<T> {
    this.quiet += 1
    try {
      return await write()
    } finally {
      // What the write left is known, so it is not reported; a write from outside meanwhile is lost to it.
      this.known = await this.read()
      this.quiet -= 1
    }
  }

  close(): void {
    this.state = 'closed'
    if (this.timer) clearTimeout(this.timer)
    if (this.poller) clearInterval(this.poller)
    this.timer = this.poller = null
    this.closeWatchers()
  }

  private closed(): boolean {
    return this.state === 'closed'
  }

  private watching(): boolean {
    return this.state === 'watch'
  }

  private async read(): Promise<Signatures> {
    const [queue, notifications, plan] = await Promise.all([
      fileSignature(this.paths.queue),
      folderSignature(this.dirs.notes),
      fileSignature(this.paths.plan),
    ])
    return { queue, notifications, plan }
  }

  private stopWatcher(key: WatchKey): void {
    this.watchers.get(key)?.watcher.close()
    this.watchers.delete(key)
  }

  private closeWatchers(): void {
    for (const key of [...this.watchers.keys()]) this.stopWatcher(key)
  }

  private readonly fallBack = (err: unknown): void => {
    if (this.state !== 'watch') return
    this.state = 'poll'
    this.closeWatchers()
    this.options.onFallback?.(err)
    this.poller = setInterval(this.schedule, this.pollMs)
    this.poller.unref()
  }

  private startWatcher(key: WatchKey, ino: number | null): void {
    // Any entry of .ralph/ may be the one that matters (a temp file renamed onto plan.jsonl, the folder itself
    // going away): the settled read below tells what really changed. The project is watched only for .ralph/.
    const watcher = (this.options.watch ?? watch)(this.dirs[key], { persistent: false }, (_event, name) => {
      if (key !== 'root' || name === null || String(name) === '.ralph') this.schedule()
    })
    watcher.on('error', () => {
      // The folder went away or inotify broke: re-arm on the next read (which polls if watching fails).
      this.stopWatcher(key)
      this.schedule()
    })
    this.watchers.set(key, { watcher, ino })
  }

  /** Watches what exists now: .ralph/ and its notifications/, or the project until .ralph/ appears. */
  private async arm(): Promise<void> {
    if (this.state !== 'watch') return
    const ralphIno = await folderInode(this.dirs.ralph)
    const notesIno = ralphIno === null ? null : await folderInode(this.dirs.notes)
    // Read through a method: `mode` may change while a read awaits.
    if (!this.watching()) return
    const running = new Map([...this.watchers].map(([key, w]) => [key, w.ino]))
    const steps = armSteps(running, ralphIno, notesIno)
    for (const key of steps.stop) this.stopWatcher(key)
    for (const { key, ino } of steps.start) this.startWatcher(key, ino)
  }

  private readonly flush = async (): Promise<void> => {
    if (this.closed()) return
    if (this.quiet > 0) return this.schedule()
    if (this.watching()) await this.arm().catch(this.fallBack)
    const now = await this.read()
    if (this.closed() || this.quiet > 0) return
    const changed = changedSince(this.known, now)
    this.known = now
    if (changed.size > 0) this.onChange(changed)
  }

  private readonly schedule = (): void => {
    if (this.state === 'closed') return
    // A burst is waited out, but never for long: a loop writing .ralph/ all the time must not starve the reads.
    if (this.timer && Date.now() - this.pendingSince >= this.debounceMs * MAX_WAIT_FACTOR) return
    if (this.timer) clearTimeout(this.timer)
    else this.pendingSince = Date.now()
    this.timer = setTimeout(() => {
      this.timer = null
      // One flush at a time: a burst during a slow read is looked at once the read is done.
      this.flushing = this.flushing.then(this.flush, this.flush)
    }, this.debounceMs)
    this.timer.unref()
  }
}
