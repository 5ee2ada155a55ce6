// Reading a project file that the model may have replaced by a named pipe, a socket or a device. open(2) on a FIFO
// waits for a writer that never comes (`mkfifo .gitignore` hung the app), and a device can stream forever. Every
// reader of project files opens through here: O_NONBLOCK makes the open return at once whatever the file is, and
// fstat on the open descriptor (not a stat of the path before it, which a swap could outrun) says what it is.
import type { Stats } from 'node:fs'
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs'
import { open } from 'node:fs/promises'
import { ifUnreadable } from './failures'

// Windows has neither FIFOs in the file system nor O_NONBLOCK (the constant is undefined there).
const NONBLOCK = constants.O_NONBLOCK ?? 0
const NOFOLLOW = constants.O_NOFOLLOW ?? 0
const NOCTTY = constants.O_NOCTTY ?? 0

/** What a non-regular file is, for messages: "a named pipe (FIFO)", "a socket", … */
export function fileKind(
  st: Pick<
    Stats,
    | 'isFIFO'
    | 'isSocket'
    | 'isCharacterDevice'
    | 'isBlockDevice'
    | 'isDirectory'
    | 'isSymbolicLink'
    | 'isFile'
  >,
): string {
  if (st.isFile()) return 'a file'
  if (st.isDirectory()) return 'a folder'
  if (st.isSymbolicLink()) return 'a symbolic link'
  if (st.isFIFO()) return 'a named pipe (FIFO)'
  if (st.isSocket()) return 'a socket'
  if (st.isCharacterDevice()) return 'a character device'
  if (st.isBlockDevice()) return 'a block device'
  return 'not a regular file'
}

/** The note a reader gives for a path it did not open: "<rel> is a named pipe (FIFO), not a regular file: …". */
export function notRegularNote(rel: string, kind: string): string {
  return `${rel} is ${kind}, not a regular file: it was not read (reading it could wait forever).`
}

export type RegularRead =
  | { ok: true; data: Buffer; stat: Stats }
  | { ok: false; reason: 'missing' }
  | { ok: false; reason: 'not-regular'; kind: string }
  | { ok: false; reason: 'too-large'; size: number }

export interface ReadOptions {
  /** Refuse a symbolic link at the last component (the link itself is not a regular file). */
  noFollow?: boolean
  /** Refuse (without reading) a file larger than this. */
  maxBytes?: number
}

const flags = (opts: ReadOptions): number =>
  constants.O_RDONLY | NONBLOCK | NOCTTY | (opts.noFollow ? NOFOLLOW : 0)

function failure(err: unknown, opts: ReadOptions): RegularRead {
  const code = (err as NodeJS.ErrnoException).code
  if (code === 'ENOENT' || code === 'ENOTDIR') return { ok: false, reason: 'missing' }
  // O_NOFOLLOW on a symlink: ELOOP (Linux, macOS), EMLINK (FreeBSD).
  if (opts.noFollow && (code === 'ELOOP' || code === 'EMLINK'))
    return { ok: false, reason: 'not-regular', kind: 'a symbolic link' }
  // A FIFO opened for reading never fails with ENXIO, but a socket does (it cannot be opened at all).
  if (code === 'ENXIO' || code === 'EOPNOTSUPP') return { ok: false, reason: 'not-regular', kind: 'a socket' }
  throw err
}

/**
 * Reads a whole file if it is a regular file; never blocks on a FIFO or device. Other errors (permissions) throw.
 */
export async function readRegularFile(path: string, opts: ReadOptions = {}): Promise<RegularRead> {
  let fh
  try {
    fh = await open(path, flags(opts))
  } catch (err) {
    return failure(err, opts)
  }
  try {
    const st = await fh.stat()
    if (!st.isFile()) return { ok: false, reason: 'not-regular', kind: fileKind(st) }
    if (opts.maxBytes !== undefined && st.size > opts.maxBytes)
      return { ok: false, reason: 'too-large', size: st.size }
    return { ok: true, data: await fh.readFile(), stat: st }
  } finally {
    await fh.close()
  }
}

/** readRegularFile without the thread pool, for synchronous readers. */
export function readRegularFileSync(path: string, opts: ReadOptions = {}): RegularRead {
  let fd: number
  try {
    fd = openSync(path, flags(opts))
  } catch (err) {
    return failure(err, opts)
  }
  try {
    const st = fstatSync(fd)
    if (!st.isFile()) return { ok: false, reason: 'not-regular', kind: fileKind(st) }
    if (opts.maxBytes !== undefined && st.size > opts.maxBytes)
      return { ok: false, reason: 'too-large', size: st.size }
    const chunks: Buffer[] = []
    let total = 0
    for (;;) {
      const buf = Buffer.allocUnsafe(Math.max(64 * 1024, st.size - total + 1))
      const n = readSync(fd, buf, 0, buf.length, null)
      if (n === 0) break
      chunks.push(buf.subarray(0, n))
      total += n
    }
    return { ok: true, data: Buffer.concat(chunks, total), stat: st }
  } finally {
    closeSync(fd)
  }
}

/** Reads a regular file as UTF-8 text; null when missing or not a regular file (onSkip hears which). */
export async function readRegularText(path: string, onSkip?: (kind: string) => void): Promise<string | null> {
  const r = await readRegularFile(path).catch(ifUnreadable(null))
  if (r === null || !r.ok) {
    if (r && r.reason === 'not-regular') onSkip?.(r.kind)
    return null
  }
  return r.data.toString('utf8')
}
