import { hash } from 'node:crypto'
import { fstatSync, openSync, closeSync, readSync } from 'node:fs'
import { join } from 'node:path'
import { ifUnreadable } from '../workspace'

/** Bytes of an index entry before its name: ctime, mtime, dev, ino, mode, uid, gid, size, blob name, flags. */
export const FIXED = 62

/** One extension of an index file, kept as read. */
export interface IndexExtension {
  signature: string
  data: Buffer
}

/** An index as git wrote it: entries in index order, their fixed parts found by offset in the file's bytes. */
export interface ParsedIndex {
  names: Buffer[]
  /**
   * Where each entry's fixed part (FIXED bytes: stat data, name, mode, flags) starts in `entries`. Offsets, not a
   * view per entry: tens of thousands of views were a real share of a CLI save (allocation and collection).
   */
  offsets: Uint32Array
  extensions: IndexExtension[]
  /** The index file's mtime: entries modified at or after it are "racily clean" (git re-checks their content). */
  mtimeSeconds: number
  /** The file's header and entries, as read. */
  entries: Buffer
}

/**
 * Reads the shadow index (gitformat-index(5), versions 2 to 4) for the in-process staging path. Null whenever
 * it holds anything that path does not handle — conflict stages, assume-valid, skip-worktree or intent-to-add
 * entries, gitlinks, a split or sparse index, an unknown required extension, a bad checksum — so git's own
 * update-index does the work instead.
 */
export function readIndex(indexDir: string): ParsedIndex | null {
  let buf: Buffer
  let mtimeSeconds: number
  let fd: number
  try {
    fd = openSync(join(indexDir, 'index'), 'r')
  } catch (err) {
    return ifUnreadable(null)(err)
  }
  try {
    // One descriptor for stat and content: the mtime belongs to exactly these bytes.
    const st = fstatSync(fd)
    mtimeSeconds = Math.floor(st.mtimeMs / 1000)
    buf = Buffer.allocUnsafe(st.size)
    let filled = 0
    while (filled < st.size) {
      const n = readSync(fd, buf, filled, st.size - filled, filled)
      if (n === 0) return null
      filled += n
    }
  } finally {
    closeSync(fd)
  }
  return parseIndex(buf, mtimeSeconds)
}

/** An index file's header, once its signature, version (2 to 4) and checksum are good; `end` is where the checksum starts. */
export function indexHeader(buf: Buffer): { version: number; count: number; end: number } | null {
  if (buf.length < 32 || buf.toString('latin1', 0, 4) !== 'DIRC') return null
  const version = buf.readUInt32BE(4)
  if (version < 2 || version > 4) return null
  const end = buf.length - 20
  if (!hash('sha1', buf.subarray(0, end), 'buffer').equals(buf.subarray(end))) return null
  return { version, count: buf.readUInt32BE(8), end }
}

export function parseIndex(buf: Buffer, mtimeSeconds: number): ParsedIndex | null {
  const header = indexHeader(buf)
  if (!header) return null
  const { version, count, end } = header
  const names: Buffer[] = []
  const offsets = new Uint32Array(count)
  let at = 12
  // Version 4 names are rebuilt into one shared buffer (a buffer each made garbage collection a real cost).
  // This loop runs once per process, before V8 optimises it: plain byte reads, no call or allocation per
  // entry that can be avoided.
  let pool = Buffer.allocUnsafe(version === 4 ? Math.max(4096, buf.length * 2) : 0)
  let used = 0
  let prevStart = 0
  let prevLength = 0
  for (let i = 0; i < count; i++) {
    if (at + FIXED > end) return null
    // Assume-valid, extended (skip-worktree, intent-to-add) or a conflict stage: git's business.
    if ((buf[at + 60]! & 0xf0) !== 0) return null
    const nameLength = ((buf[at + 60]! & 0x0f) << 8) | buf[at + 61]!
    // Regular files (644, 755) and symlinks only: 0x81a4, 0x81ed, 0xa000 in the mode's low 16 bits.
    const modeHigh = buf[at + 26]!
    const modeLow = buf[at + 27]!
    if (
      buf[at + 24] !== 0 ||
      buf[at + 25] !== 0 ||
      !(modeHigh === 0x81 ? modeLow === 0xa4 || modeLow === 0xed : modeHigh === 0xa0 && modeLow === 0)
    )
      return null
    offsets[i] = at
    let p = at + FIXED
    let name: Buffer
    if (version === 4) {
      // Drop N bytes from the end of the previous name (git's offset varint), then a NUL-terminated suffix.
      const { value: drop, next } = readOffsetVarint(buf, p)
      p = next
      let nul = p
      while (nul < end && buf[nul] !== 0) nul++ // names are short: a byte loop, not a call to indexOf
      if (nul >= end || drop > prevLength) return null
      const keep = prevLength - drop
      const length = keep + nul - p
      if (used + length > pool.length) {
        const grown = Buffer.allocUnsafe(Math.max(pool.length, length * 2))
        pool.copy(grown, 0, prevStart, prevStart + keep)
        pool = grown
        prevStart = 0
        used = 0
      }
      if (keep > 0 && prevStart !== used) pool.copyWithin(used, prevStart, prevStart + keep)
      // A byte loop, not Buffer#copy: the suffix is a few bytes, and the call's checks cost more than the copy.
      for (let k = p, to = used + keep; k < nul; k++, to++) pool[to] = buf[k]!
      name = pool.subarray(used, used + length)
      prevStart = used
      prevLength = length
      used += length
      at = nul + 1
    } else {
      const nul = buf.indexOf(0, p)
      if (nul === -1 || nul >= end) return null
      name = buf.subarray(p, nul)
      // Entries are padded with 1-8 NULs to a multiple of eight bytes.
      at += (FIXED + name.length + 8) & ~7
    }
    if (nameLength !== (name.length < 0xfff ? name.length : 0xfff)) return null
    names.push(name)
  }
  const entriesEnd = at
  const extensions = readExtensions(buf, at, end)
  if (extensions === null) return null
  return { names, offsets, extensions, mtimeSeconds, entries: buf.subarray(0, entriesEnd) }
}

/** The extensions between `at` and `end` (the checksum); null when one is cut short or must be understood. */
export function readExtensions(buf: Buffer, at: number, end: number): IndexExtension[] | null {
  const extensions: IndexExtension[] = []
  while (at < end) {
    if (at + 8 > end) return null
    const signature = buf.toString('latin1', at, at + 4)
    const size = buf.readUInt32BE(at + 4)
    if (at + 8 + size > end) return null
    // A lowercase first letter marks an extension a reader must understand (split index, sparse index).
    if (!/^[A-Z]/.test(signature)) return null
    extensions.push({ signature, data: buf.subarray(at + 8, at + 8 + size) })
    at += 8 + size
  }
  return extensions
}

/** Git's offset varint (index v4's prefix compression of names): its value and the offset just after it. */
export function readOffsetVarint(buf: Buffer, at: number): { value: number; next: number } {
  let p = at
  let c = buf[p++]!
  let value = c & 127
  while (c & 128) {
    c = buf[p++]!
    value = ((value + 1) << 7) | (c & 127)
  }
  return { value, next: p }
}
