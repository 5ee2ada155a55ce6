import { hash } from 'node:crypto'
import type { BigIntStats } from 'node:fs'
import { closeSync, openSync, renameSync, rmSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import { FIXED } from './indexRead'

/**
 * The entries of an index being built: each file's path and the fixed part git stores for it, packed into one
 * buffer as files are read. Keeping neither stat objects nor a buffer per file alive matters at 50,000 files:
 * retained, they made garbage collection a fifth of a first snapshot's time.
 */
export class IndexEntries {
  private pathList: string[] = []
  private fixed = Buffer.alloc(FIXED * 256)
  private names: Buffer[] | null = null
  /** Regular files whose permission bits are not 644/755, for the snapshot's mode manifest (modes.ts). */
  readonly unusualModes = new Map<string, number>()

  get length(): number {
    return this.pathList.length
  }

  get paths(): readonly string[] {
    return this.pathList
  }

  /**
   * Records a file as git's `update-index --add` would after hashing it: `stat` is the one taken before its
   * content was read (the fstat of the descriptor it was read through), `sha` its blob name.
   */
  add(path: string, stat: BigIntStats, sha: Buffer): void {
    const at = this.pathList.length * FIXED
    if (at + FIXED > this.fixed.length) {
      const grown = Buffer.alloc(this.fixed.length * 2)
      this.fixed.copy(grown)
      this.fixed = grown
    }
    encodeStat(this.fixed, at, stat, sha)
    this.pathList.push(path)
    this.names = null
    const perm = Number(stat.mode) & 0o7777
    if (stat.isFile() && perm !== 0o644 && perm !== 0o755) this.unusualModes.set(path, perm)
  }

  /** The blob name of entry `i` (a view: copy it to keep it). */
  sha(i: number): Buffer {
    return this.fixed.subarray(i * FIXED + 40, i * FIXED + 60)
  }

  mode(i: number): number {
    return this.fixed.readUInt32BE(i * FIXED + 24)
  }

  /**
   * The paths in bytes, after putting the entries in index order (bytes of the path). Callers add them in
   * git's order but for a few `.ralph/` files at the end, so this rarely moves anything.
   */
  sortedNames(): Buffer[] {
    if (this.names) return this.names
    const names = this.pathList.map((p) => Buffer.from(p, 'utf8'))
    const inOrder = names.every((n, i) => i === 0 || Buffer.compare(names[i - 1]!, n) < 0)
    if (!inOrder) {
      const order = names.map((_, i) => i).sort((x, y) => Buffer.compare(names[x]!, names[y]!))
      const fixed = Buffer.alloc(this.fixed.length)
      order.forEach((from, to) => this.fixed.copy(fixed, to * FIXED, from * FIXED, (from + 1) * FIXED))
      this.pathList = order.map((i) => this.pathList[i]!)
      this.fixed = fixed
      this.names = order.map((i) => names[i]!)
    } else {
      this.names = names
    }
    for (let i = 1; i < this.names.length; i++) {
      if (Buffer.compare(this.names[i - 1]!, this.names[i]!) === 0) {
        throw new Error(`"${this.pathList[i]}" is in the index twice`)
      }
    }
    return this.names
  }

  /** Whether some symlink was modified at or after `seconds` (Unix time). */
  hasSymlinkModifiedSince(seconds: number): boolean {
    for (let at = 0; at < this.pathList.length * FIXED; at += FIXED) {
      if (this.fixed.readUInt32BE(at + 24) === 0o120000 && this.fixed.readUInt32BE(at + 8) >= seconds)
        return true
    }
    return false
  }

  /** Entry `i`'s fixed part, its flags set for a name of `nameLength` bytes (stage 0). */
  fixedPart(i: number, nameLength: number): Buffer {
    const part = this.fixed.subarray(i * FIXED, (i + 1) * FIXED)
    part.writeUInt16BE(Math.min(nameLength, 0xfff), 60)
    return part
  }
}

/**
 * Writes a fresh index (format version 4, gitformat-index(5)) holding exactly `entries`, through git's own lock
 * protocol: `index.lock` is created exclusively and renamed over the index, so git never sees a half-written
 * file. This is what lets a first snapshot read each file once: we name the blobs as we hand them to
 * fast-import, and the stat data comes from the descriptor each file was read through; `update-index --add`
 * would read and hash every file a second time, one by one (50,000 files: ~1 s here). Git verifies the
 * trailing checksum on every read, and a stat field it disagrees with only makes its next refresh re-hash that
 * file — never a wrong snapshot. `cacheTree` (see treeHash.ts) is stored as the TREE extension.
 */
export function writeFreshIndex(gitDir: string, entries: IndexEntries, cacheTree?: Buffer): void {
  const names = entries.sortedNames()
  writeIndexFile(
    gitDir,
    names,
    (i) => entries.fixedPart(i, names[i]!.length),
    cacheTree ? [{ signature: 'TREE', data: cacheTree }] : [],
  )
}

/**
 * Writes an index (version 4) of `names` (in index order, stage 0) whose fixed parts `fixedPart(i)` gives, flags
 * included, followed by `extensions`, through git's lock: see writeFreshIndex.
 */
export function writeIndexFile(
  gitDir: string,
  names: readonly Buffer[],
  fixedPart: (i: number) => Buffer,
  extensions: readonly { signature: string; data: Buffer }[],
): void {
  // Version 4 stores each name as "drop N bytes from the end of the previous name, then append the rest".
  let size = 12 + 20
  for (const e of extensions) size += 8 + e.data.length
  const common = new Uint32Array(names.length)
  let previous: Buffer = Buffer.alloc(0)
  for (let i = 0; i < names.length; i++) {
    const name = names[i]!
    const c = commonPrefix(previous, name)
    common[i] = c
    size += FIXED + varintLength(previous.length - c) + name.length - c + 1
    previous = name
  }
  const out = Buffer.alloc(size)
  out.write('DIRC', 0, 'latin1')
  out.writeUInt32BE(4, 4)
  out.writeUInt32BE(names.length, 8)
  let at = 12
  let previousLength = 0
  for (let i = 0; i < names.length; i++) {
    const name = names[i]!
    at += fixedPart(i).copy(out, at, 0, FIXED)
    at = writeVarint(out, at, previousLength - common[i]!)
    at += name.copy(out, at, common[i]!)
    at += 1 // the name's NUL
    previousLength = name.length
  }
  finishIndex(gitDir, out, at, extensions)
}

/**
 * Writes an index that differs from `entries` (an index file's header and entries, as read) only in the fixed
 * parts of some entries, same names: `patches` gives each one's offset and its new 62 bytes. The entries are
 * copied as they are instead of being encoded one by one (a save that only modifies files needs no more).
 */
export function writePatchedIndex(
  gitDir: string,
  entries: Buffer,
  patches: readonly { offset: number; fixed: Buffer }[],
  extensions: readonly { signature: string; data: Buffer }[],
): void {
  let size = entries.length + 20
  for (const e of extensions) size += 8 + e.data.length
  const out = Buffer.allocUnsafe(size)
  const at = entries.copy(out, 0)
  for (const p of patches) p.fixed.copy(out, p.offset, 0, FIXED)
  finishIndex(gitDir, out, at, extensions)
}

/** Appends the extensions at `at` and the checksum after them, and puts the index in place. */
function finishIndex(
  gitDir: string,
  out: Buffer,
  at: number,
  extensions: readonly { signature: string; data: Buffer }[],
): void {
  for (const e of extensions) {
    at += out.write(e.signature, at, 'latin1')
    at = out.writeUInt32BE(e.data.length, at)
    at += e.data.copy(out, at)
  }
  hash('sha1', out.subarray(0, at), 'buffer').copy(out, at)
  replaceIndex(gitDir, out)
}

/** Git's lock protocol: `index.lock` is created exclusively and renamed over the index. */
function replaceIndex(gitDir: string, out: Buffer): void {
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

/** An entry's fixed part as `update-index --add` records it: stat data, blob name and the name's length. */
export function entryFixedPart(stat: BigIntStats, sha: Buffer, nameLength: number): Buffer {
  const out = Buffer.alloc(FIXED)
  encodeStat(out, 0, stat, sha)
  out.writeUInt16BE(Math.min(nameLength, 0xfff), 60)
  return out
}

function encodeStat(out: Buffer, at: number, stat: BigIntStats, sha: Buffer): void {
  writeTime(out, at, stat.ctimeNs)
  writeTime(out, at + 8, stat.mtimeNs)
  out.writeUInt32BE(u32(stat.dev), at + 16)
  out.writeUInt32BE(u32(stat.ino), at + 20)
  out.writeUInt32BE(indexMode(stat), at + 24)
  out.writeUInt32BE(u32(stat.uid), at + 28)
  out.writeUInt32BE(u32(stat.gid), at + 32)
  out.writeUInt32BE(u32(stat.size), at + 36)
  sha.copy(out, at + 40, 0, 20)
}

const NS = 1_000_000_000n
/** Git keeps the low 32 bits of each stat field. `>>> 0` does exactly that for any integer below 2^53. */
const u32 = (v: bigint): number => Number(v) >>> 0

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
  const out = Buffer.alloc(varintLength(value))
  writeVarint(out, 0, value)
  return out
}

function varintLength(value: number): number {
  let n = 1
  for (let v = value >>> 7; v > 0; v = (v - 1) >>> 7) n++
  return n
}

function writeVarint(out: Buffer, at: number, value: number): number {
  const n = varintLength(value)
  let v = value
  out[at + n - 1] = v & 127
  for (let k = n - 2; k >= 0; k--) {
    v = (v >>> 7) - 1
    out[at + k] = 128 | (v & 127)
  }
  return at + n
}
