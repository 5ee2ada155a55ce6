import { watch, type FSWatcher } from 'node:fs'
import { readdir, stat } from 'node:fs/promises'
import { join } from 'node:path'

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

const fileSignature = async (path: string): Promise<string> => {
  try {
    const s = await stat(path)
    return `${s.ino}:${s.size}:${s.mtimeMs}`
  } catch {
    return 'none'
  }
}

/** The notifications folder's entries with their identities: a new, removed or rewritten note changes it. */
async function folderSignature(dir: string): Promise<string> {
  let names: string[]
  try {
    names = (await readdir(dir)).sort()
  } catch {
    return 'none'
  }
  const parts = await Promise.all(names.map(async (n) => `${n}=${await fileSignature(join(dir, n))}`))
  return parts.join('|')
}

export function watchRalphFolder(
  projectDir: string,
  onChange: (changes: ReadonlySet<RalphChange>) => void,
  options: RalphWatchOptions = {},
): RalphWatch {
  const debounceMs = options.debounceMs ?? DEBOUNCE_MS
  const pollMs = options.pollMs ?? POLL_MS
  const ralphDir = join(projectDir, '.ralph')
  const notesDir = join(ralphDir, 'notifications')
  const paths = { queue: join(ralphDir, 'plan.jsonl'), plan: join(ralphDir, 'plan.tsx') }

  let mode: RalphWatch['mode'] = 'watch'
  let known: Signatures = { queue: 'none', notifications: 'none', plan: 'none' }
  // One watcher per folder, with the inode it watches (a folder replaced by a rollback is watched again).
  const watchers = new Map<'root' | 'ralph' | 'notes', { watcher: FSWatcher; ino: number | null }>()
  let timer: NodeJS.Timeout | null = null
  let pendingSince = 0
  let poller: NodeJS.Timeout | null = null
  let quiet = 0
  let flushing: Promise<void> = Promise.resolve()

  const read = async (): Promise<Signatures> => {
    const [queue, notifications, plan] = await Promise.all([
      fileSignature(paths.queue),
      folderSignature(notesDir),
      fileSignature(paths.plan),
    ])
    return { queue, notifications, plan }
  }

  const inode = async (dir: string): Promise<number | null> => {
    try {
      const s = await stat(dir)
      return s.isDirectory() ? s.ino : null
    } catch {
      return null
    }
  }

  const stopWatcher = (key: 'root' | 'ralph' | 'notes') => {
    watchers.get(key)?.watcher.close()
    watchers.delete(key)
  }

  const closeWatchers = () => {
    for (const key of [...watchers.keys()]) stopWatcher(key)
  }

  const fallBack = (err: unknown) => {
    if (mode !== 'watch') return
    mode = 'poll'
    closeWatchers()
    options.onFallback?.(err)
    poller = setInterval(schedule, pollMs)
    poller.unref()
  }

  const startWatcher = (key: 'root' | 'ralph' | 'notes', dir: string, ino: number | null) => {
    // Any entry of .ralph/ may be the one that matters (a temp file renamed onto plan.jsonl, the folder itself
    // going away): the settled read below tells what really changed. The project is watched only for .ralph/.
    const watcher = (options.watch ?? watch)(dir, { persistent: false }, (_event, name) => {
      if (key !== 'root' || name === null || String(name) === '.ralph') schedule()
    })
    watcher.on('error', () => {
      // The folder went away or inotify broke: re-arm on the next read (which polls if watching fails).
      stopWatcher(key)
      schedule()
    })
    watchers.set(key, { watcher, ino })
  }

  /** Watches what exists now: .ralph/ and its notifications/, or the project until .ralph/ appears. */
  const arm = async (): Promise<void> => {
    if (mode !== 'watch') return
    const ralphIno = await inode(ralphDir)
    const notesIno = ralphIno === null ? null : await inode(notesDir)
    if (mode !== 'watch') return
    const ralph = watchers.get('ralph')
    if (ralph && ralph.ino !== ralphIno) stopWatcher('ralph')
    const notes = watchers.get('notes')
    if (notes && notes.ino !== notesIno) stopWatcher('notes')
    if (ralphIno === null) {
      if (!watchers.has('root')) startWatcher('root', projectDir, null)
      return
    }
    stopWatcher('root')
    if (!watchers.has('ralph')) startWatcher('ralph', ralphDir, ralphIno)
    if (notesIno !== null && !watchers.has('notes')) startWatcher('notes', notesDir, notesIno)
  }

  // Read through a function: `mode` may change while a read awaits.
  const closed = () => mode === 'closed'

  const flush = async () => {
    if (closed()) return
    if (quiet > 0) return schedule()
    if (mode === 'watch') await arm().catch(fallBack)
    const now = await read()
    if (closed() || quiet > 0) return
    const changed = new Set<RalphChange>()
    for (const key of Object.keys(now) as RalphChange[]) if (now[key] !== known[key]) changed.add(key)
    known = now
    if (changed.size > 0) onChange(changed)
  }

  function schedule() {
    if (mode === 'closed') return
    // A burst is waited out, but never for long: a loop writing .ralph/ all the time must not starve the reads.
    if (timer && Date.now() - pendingSince >= debounceMs * MAX_WAIT_FACTOR) return
    if (timer) clearTimeout(timer)
    else pendingSince = Date.now()
    timer = setTimeout(() => {
      timer = null
      // One flush at a time: a burst during a slow read is looked at once the read is done.
      flushing = flushing.then(flush, flush)
    }, debounceMs)
    timer.unref()
  }

  const ready = (async () => {
    known = await read()
    try {
      await arm()
    } catch (err) {
      fallBack(err)
    }
  })()

  return {
    ready,
    get mode() {
      return mode
    },
    async quietly(write) {
      quiet += 1
      try {
        return await write()
      } finally {
        // What the write left is known, so it is not reported; a write from outside meanwhile is lost to it.
        known = await read()
        quiet -= 1
      }
    },
    close() {
      mode = 'closed'
      if (timer) clearTimeout(timer)
      if (poller) clearInterval(poller)
      timer = poller = null
      closeWatchers()
    },
  }
}
