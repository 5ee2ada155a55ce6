import { createHash } from 'node:crypto'
import type { BigIntStats } from 'node:fs'
import { closeSync, openSync, renameSync, rmSync, writeSync } from 'node:fs'
import { join } from 'node:path'

/** One index entry: what git's `update-index --add` would record for a file it had just hashed. */
export interface IndexEntry {
  path: string
  /** Blob name, 40 hex digits. */
  sha: string
  /** The file's stat taken before its content was read, as git does (fstat of the descriptor it was read through). */
  stat: BigIntStats
}

/**
 * Writes a fresh index (format version 4, gitformat-index(5)) holding exactly `entries`, through git's own lock
 * protocol: `index.lock` is created exclusively and renamed over the index, so git never sees a half-written
 * file. This is what lets a first snapshot read each file once: fast-import stores the blobs and names them,
 * and the stat data comes from the descriptor each file was read through. `update-index --add` would read and hash every file a second
 * time, one by one (50,000 files: ~1 s here). Git verifies the trailing checksum on every read, and a stat
 * field it disagrees with only makes its next refresh re-hash that file — never a wrong snapshot.
 */
export function writeFreshIndex(gitDir: string, entries: IndexEntry[]): void {
  const named = entries.map((e) => ({ e, name: Buffer.from(e.path, 'utf8') }))
  // Git orders entries by the bytes of their names; callers mostly pass them in that order already.
  if (!named.every((n, i) => i === 0 || Buffer.compare(named[i - 1]!.name, n.name) < 0)) {
    named.sort((a, b) => Buffer.compare(a.name, b.name))
  }
  // Version 4 stores each name as "drop N bytes from the end of the previous name, then append the rest".
  const names: { strip: Buffer; suffix: Buffer }[] = []
  let size = 12 + 20
  let previous = Buffer.alloc(0)
  for (const { name } of named) {
    const common = commonPrefix(previous, name)
    const strip = encodeVarint(previous.length - common)
    names.push({ strip, suffix: name.subarray(common) })
    size += 62 + strip.length + name.length - common + 1
    previous = name
  }
  const out = Buffer.alloc(size)
  out.write('DIRC', 0, 'latin1')
  out.writeUInt32BE(4, 4)
  out.writeUInt32BE(named.length, 8)
  let at = 12
  named.forEach(({ e, name }, i) => {
    at = writeFixedPart(out, at, e, name.length)
    at += names[i]!.strip.copy(out, at)
    at += names[i]!.suffix.copy(out, at)
    at += 1 // the name's NUL
  })
  createHash('sha1').update(out.subarray(0, at)).digest().copy(out, at)

  const lock = join(gitDir, 'index.lock')
  const fd = openSync(lock, 'wx') // throws if git (or a crashed run) holds the lock: the caller falls back
  try {
    writeSync(fd, out)
    closeSync(fd)
    renameSync(lock, join(gitDir, 'index'))
  } catch (err) {
    rmSync(lock, { force: true })
    throw err
  }
}

const NS = 1_000_000_000n
/** Git keeps the low 32 bits of each stat field. `>>> 0` does exactly that for any integer below 2^53. */
const u32 = (v: bigint): number => Number(v) >>> 0

/**
 * The 62 fixed bytes: ctime, mtime, dev, ino, mode, uid, gid, size (32 bits each, truncated as git does),
 * the blob name, and flags (stage 0, nothing set: just the name length).
 */
function writeFixedPart(out: Buffer, at: number, e: IndexEntry, nameLength: number): number {
  const st = e.stat
  writeTime(out, at, st.ctimeNs)
  writeTime(out, at + 8, st.mtimeNs)
  out.writeUInt32BE(u32(st.dev), at + 16)
  out.writeUInt32BE(u32(st.ino), at + 20)
  out.writeUInt32BE(indexMode(st), at + 24)
  out.writeUInt32BE(u32(st.uid), at + 28)
  out.writeUInt32BE(u32(st.gid), at + 32)
  out.writeUInt32BE(u32(st.size), at + 36)
  out.write(e.sha, at + 40, 'hex')
  out.writeUInt16BE(Math.min(nameLength, 0xfff), at + 60)
  return at + 62
}

/** Seconds and nanoseconds; nanoseconds since 1970 pass 2^53, so the split is done in BigInt. */
function writeTime(out: Buffer, at: number, ns: bigint): void {
  const seconds = ns / NS
  out.writeUInt32BE(Number(BigInt.asUintN(32, seconds)), at)
  out.writeUInt32BE(Number(ns - seconds * NS), at + 4)
}

/** Git records only the file type and the owner's execute bit. */
export function indexMode(st: { mode: bigint | number; isSymbolicLink(): boolean }): number {
  if (st.isSymbolicLink()) return 0o120000
  return (Number(st.mode) & 0o100) !== 0 ? 0o100755 : 0o100644
}

function commonPrefix(a: Buffer, b: Buffer): number {
  const n = Math.min(a.length, b.length)
  let i = 0
  while (i < n && a[i] === b[i]) i++
  return i
}

/** Git's offset varint (varint.c): 7 bits a byte, most significant first, each continuation biased by one. */
export function encodeVarint(value: number): Buffer {
  const bytes = [value & 127]
  let v = Math.floor(value / 128)
  while (v > 0) {
    v -= 1
    bytes.unshift(128 | (v & 127))
    v = Math.floor(v / 128)
  }
  return Buffer.from(bytes)
}
