import { hostname } from 'node:os'
import { open, readFile, rename, rm, stat } from 'node:fs/promises'
import { AppError } from '../../shared/errors'
import { ifUnreadable, isUnwritable, reportedElsewhere } from '../workspace'
import { jsonObject } from './jsonFile'

export interface LockInfo {
  pid: number
  host: string
  op: string
  startedAt: number
}

export interface LockOptions {
  /** How long to wait for another process before giving up with AppError('busy'). */
  timeoutMs?: number
  /** A lock from another host (shared folder) is considered stale after this long. */
  foreignStaleMs?: number
}

const chains = new Map<string, Promise<unknown>>()
/** Lock files this process holds right now: a lock naming our own pid is stale only when it is not one of these. */
const heldHere = new Set<string>()

/** Serialises work per key inside this process. */
export function withMutex<T>(key: string, fn: () => Promise<T>): Promise<T> {
  const prev = chains.get(key) ?? Promise.resolve()
  const run = prev.then(fn, fn)
  const tail = run.catch(reportedElsewhere)
  chains.set(key, tail)
  void tail.then(() => {
    if (chains.get(key) === tail) chains.delete(key)
  })
  return run
}

export function pidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM'
  }
}

export async function readLock(file: string): Promise<{ raw: string; info: LockInfo | null } | null> {
  let raw: string
  try {
    raw = await readFile(file, 'utf8')
  } catch (err) {
    return ifUnreadable(null)(err)
  }
  const info = jsonObject<LockInfo>(raw)
  return { raw, info: typeof info?.pid === 'number' ? (info as LockInfo) : null }
}

export async function isStale(file: string, info: LockInfo | null, foreignStaleMs: number): Promise<boolean> {
  if (info === null) {
    // Unparsable: a writer died between create and write, or it is being written right now.
    const st = await stat(file).catch(ifUnreadable(null))
    return st === null || Date.now() - st.mtimeMs > 2000
  }
  if (info.host !== hostname()) return Date.now() - info.startedAt > foreignStaleMs
  // Our own pid: stale unless this process still holds it (a task lock outlives any one snapshot operation).
  if (info.pid === process.pid) return !heldHere.has(file)
  return !pidAlive(info.pid)
}

/**
 * Cross-process lock: a file created with O_EXCL holding pid, host and start time. A lock whose process
 * is dead is stale and is broken; breaking goes through a second O_EXCL file so two waiters cannot both
 * break it and then delete each other's fresh lock.
 */
export class FileLock {
  private handle: { file: string; token: string } | null = null

  /** The lock file's content while held: who holds a lock is told by comparing with it. */
  get token(): string | null {
    return this.handle?.token ?? null
  }

  constructor(
    readonly file: string,
    private readonly opts: LockOptions = {},
  ) {}

  async acquire(op: string, onStale?: (info: LockInfo | null) => void): Promise<void> {
    const timeoutMs = this.opts.timeoutMs ?? 60_000
    const foreignStaleMs = this.opts.foreignStaleMs ?? 10 * 60_000
    const deadline = Date.now() + timeoutMs
    const info: LockInfo = { pid: process.pid, host: hostname(), op, startedAt: Date.now() }
    const token = JSON.stringify(info)
    let delay = 5
    for (;;) {
      try {
        const fh = await open(this.file, 'wx')
        try {
          await fh.writeFile(token)
        } finally {
          await fh.close()
        }
        this.handle = { file: this.file, token }
        heldHere.add(this.file)
        return
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') {
          throw new AppError('io', `Cannot create the snapshot lock ${this.file}: ${(err as Error).message}`)
        }
      }
      const current = await readLock(this.file)
      if (current && (await isStale(this.file, current.info, foreignStaleMs))) {
        if (await this.breakStale(current.raw)) {
          onStale?.(current.info)
          continue
        }
      }
      if (Date.now() > deadline) {
        const who = current?.info ? `process ${current.info.pid} (${current.info.op})` : 'another process'
        throw new AppError(
          'busy',
          `Another snapshot operation is running: ${who}. Try again when it finishes.`,
          {
            lockFile: this.file,
            holder: current?.info ?? null,
          },
        )
      }
      await new Promise((r) => setTimeout(r, delay))
      delay = Math.min(delay * 2, 100)
    }
  }

  private async breakStale(staleRaw: string): Promise<boolean> {
    const breaker = `${this.file}.break`
    try {
      const fh = await open(breaker, 'wx')
      await fh.close()
    } catch (err) {
      // Someone else is breaking it; a breaker left by a killed process is cleared after a while.
      if (!isUnwritable(err)) throw err
      const st = await stat(breaker).catch(ifUnreadable(null))
      if (st && Date.now() - st.mtimeMs > 5000) await rm(breaker, { force: true })
      return false
    }
    try {
      const again = await readLock(this.file)
      if (again === null) return true
      if (again.raw !== staleRaw) return false
      const aside = `${this.file}.stale-${process.pid}`
      await rename(this.file, aside)
      await rm(aside, { force: true })
      return true
    } finally {
      await rm(breaker, { force: true })
    }
  }

  async release(): Promise<void> {
    if (!this.handle) return
    const { file, token } = this.handle
    this.handle = null
    heldHere.delete(file)
    const current = await readLock(file)
    // Only remove our own lock: never one a stale-breaker handed to someone else.
    if (current?.raw === token) await rm(file, { force: true })
  }
}

/** In-process mutex plus cross-process lock file around one operation. */
export async function withProjectLock<T>(
  key: string,
  lockFile: string,
  op: string,
  opts: LockOptions,
  fn: () => Promise<T>,
  onStale?: (info: LockInfo | null) => void,
): Promise<T> {
  return withMutex(key, async () => {
    const lock = new FileLock(lockFile, opts)
    await lock.acquire(op, onStale)
    try {
      return await fn()
    } finally {
      await lock.release()
    }
  })
}
