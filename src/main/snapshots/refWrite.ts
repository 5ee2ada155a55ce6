import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs'
import { dirname, join } from 'node:path'

/** One ref to write: `create` refuses a ref that exists already (a snapshot tag), otherwise it is moved. */
export interface RefUpdate {
  ref: string
  sha: string
  create: boolean
}

const PLAIN_REF = /^refs\/(tags|heads)\/[A-Za-z0-9][A-Za-z0-9._-]*$/

/**
 * Writes refs as `git update-ref --stdin` does with the files backend — every ref locked first (`<ref>.lock`,
 * created exclusively), then each lock renamed into place — without starting git. The store keeps no reflogs
 * (core.logAllRefUpdates=false, DESIGN.md §5) and the callers hold the project lock. False, with nothing
 * written, for anything else (a lock left by someone, a tag that exists, an unusual name): git does it then,
 * and says what is wrong in its own words.
 */
export function writeRefsInProcess(gitDir: string, updates: readonly RefUpdate[]): boolean {
  if (existsSync(join(gitDir, 'logs'))) return false
  if (!updates.every((u) => PLAIN_REF.test(u.ref) && /^[0-9a-f]{40}$/.test(u.sha))) return false
  const packed = updates.some((u) => u.create) ? readPacked(gitDir) : ''
  if (packed === null) return false
  const locks: string[] = []
  const release = (): false => {
    for (const lock of locks) rmSync(lock, { force: true })
    return false
  }
  for (const u of updates) {
    const file = join(gitDir, u.ref)
    if (u.create && (existsSync(file) || packed.includes(` ${u.ref}\n`))) return release()
    const lock = `${file}.lock`
    let fd: number
    try {
      mkdirSync(dirname(file), { recursive: true })
      fd = openSync(lock, 'wx', 0o644)
    } catch {
      return release()
    }
    locks.push(lock)
    try {
      writeSync(fd, `${u.sha}\n`)
    } catch {
      return release()
    } finally {
      closeSync(fd)
    }
  }
  updates.forEach((u, i) => renameSync(locks[i]!, join(gitDir, u.ref)))
  return true
}

function readPacked(gitDir: string): string | null {
  try {
    return `${readFileSync(join(gitDir, 'packed-refs'), 'utf8')}\n`
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENOENT' ? '' : null
  }
}
