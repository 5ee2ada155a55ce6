import { hash, randomBytes } from 'node:crypto'
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs'
import { isAbsolute, join, resolve } from 'node:path'
import { writePack, type PackObject } from './packWriter'
import { deflateSync, inflateSync, constants as zlib } from 'node:zlib'
import { ifUnreadable, isUnreadable } from '../workspace'
import { traceGitFallback } from './traceGit'

/**
 * The store's objects, read and written without starting git: which objects exist (loose files and pack
 * indexes), loose objects read and written in git's own format. Used by the in-process staging path, where a
 * git call costs more than the work itself. Only what git would do for the same call: a loose object is
 * written to a temporary file and renamed into place, so a reader never sees half an object.
 */
export class ObjectStore {
  private readonly objectsDir: string
  private packs: PackIndex[] | null = null
  private readonly pending = new Map<string, PackObject>()
  private readonly looseDirs = new Map<string, Set<string>>()
  /** The stores named in objects/info/alternates, read once (see `borrowed`). */
  private alternates: ObjectStore[] | null = null

  /** `objectsDir` and `depth` are for the stores this one borrows from (objects/info/alternates). */
  constructor(
    gitDir: string,
    objectsDir = join(gitDir, 'objects'),
    private readonly depth = 0,
  ) {
    this.objectsDir = objectsDir
  }

  /**
   * Whether the store can read `sha` (hex): its own objects (loose, packed, or queued for the next pack), or
   * those of a store it borrows from through objects/info/alternates, as git reads them (a lane's store).
   */
  has(sha: string): boolean {
    return this.hasRaw(Buffer.from(sha, 'hex'))
  }

  /** `has` for a 20-byte name: the in-process path asks this for every file of the folders it rewrites. */
  hasRaw(sha: Buffer): boolean {
    return this.hasAt(sha, 0)
  }

  /** `hasRaw` for the 20 bytes of `buf` at `at` (no view made: asked once per file of a rewritten folder). */
  hasAt(buf: Buffer, at: number): boolean {
    return this.ownsAt(buf, at) || this.borrowed().some((alt) => alt.hasAt(buf, at))
  }

  /** `hasAt` in this store's own objects only: what decides whether an object is written (as before borrowing). */
  private ownsAt(buf: Buffer, at: number): boolean {
    if (this.inPacks(buf, at)) return true
    if (this.pending.size > 0 && this.pending.has(buf.toString('latin1', at, at + 20))) return true
    const hex = buf.toString('hex', at, at + 20)
    return this.looseNames(hex.slice(0, 2)).has(hex.slice(2))
  }

  /**
   * The position of the first object the store lacks, or -1: name k is the 20 bytes of `bufs[k]` at `at[k]`.
   * One call for a whole folder's files, the packs searched inline: a chain of calls per file is most of the
   * cost in a process whose code is not optimised yet.
   */
  firstMissingAt(bufs: readonly Buffer[], at: readonly number[]): number {
    const packs = (this.packs ??= this.readPackIndexes())
    found: for (let k = 0; k < bufs.length; k++) {
      for (let p = 0; p < packs.length; p++)
        if (packIndexFind(packs[p]!, bufs[k]!, at[k]!) !== -1) continue found
      if (!this.hasAt(bufs[k]!, at[k]!)) return k
    }
    return -1
  }

  /** Whether `sha` (hex) is stored, loose or packed: one stat for a loose object, no folder listed. */
  holds(sha: string): boolean {
    return (
      existsSync(join(this.objectsDir, sha.slice(0, 2), sha.slice(2))) ||
      this.inPacks(Buffer.from(sha, 'hex')) ||
      this.borrowed().some((alt) => alt.holds(sha))
    )
  }

  /**
   * Queues an object (given with its header, "blob 12\0…") for `flush`, unless a pack holds it already. Loose
   * objects are not listed for this: a new object's folder would be read for nothing, and a copy in a pack of
   * an object also stored loose is harmless.
   */
  add(whole: Buffer, sha: Buffer): void {
    const key = sha.toString('latin1')
    if (!this.pending.has(key) && !this.inPacks(sha)) this.pending.set(key, { sha: Buffer.from(sha), whole })
  }

  /**
   * Writes the queued objects: a few as loose files, many as one pack (see packWriter.ts). Fewer than
   * LOOSE_LIMIT stay loose, so packs stay few (packMaintenance.ts merges the small ones).
   */
  flush(): void {
    const objects = [...this.pending.values()]
    this.pending.clear()
    if (objects.length >= LOOSE_LIMIT) {
      writePack(this.objectsDir, objects)
      this.packs = null
    } else {
      for (const { sha, whole } of objects) this.writeWhole(whole, sha.toString('hex'))
    }
  }

  /**
   * An object's type without reading it whole: from a loose object's header or a packed object's entry header.
   * Null when missing, or when that header does not say (a delta): the caller asks git.
   */
  typeOf(sha: string): string | null {
    return this.ownTypeOf(sha) ?? this.fromBorrowed((alt) => alt.typeOf(sha))
  }

  private ownTypeOf(sha: string): string | null {
    const loose = this.readOwnLoose(sha)
    if (loose) return loose.type
    this.packs ??= this.readPackIndexes()
    let key: Buffer = Buffer.from(sha, 'hex')
    // A delta has its base's type (git only deltifies objects against objects of the same type): follow the
    // chain to an entry that names its type, as deep as git's own limit.
    for (let depth = 0; depth < 64; depth++) {
      const found = this.packedEntry(key)
      if (found === null) return null
      let at = found.offset
      for (;;) {
        const head = readAt(found.pack.pack, at, 32)
        if (head === null) return null
        const type = (head[0]! >> 4) & 7
        let p = 0
        while (head[p]! & 0x80) p++ // the size's continuation bytes
        p++
        if (type >= 1 && type <= 4) return PACKED_TYPES[type]!
        if (type === 7) {
          key = head.subarray(p, p + 20) // REF_DELTA: the base's name
          break
        }
        if (type !== 6) return null
        // OFS_DELTA: the base sits this many bytes before (git's offset varint).
        let c = head[p++]!
        let back = c & 127
        while (c & 128) {
          c = head[p++]!
          back = ((back + 1) * 128) | (c & 127)
        }
        at -= back
        if (++depth >= 64) return null
      }
    }
    return null
  }

  /** Where a packed object's entry starts; null when no pack holds it (or only a large pack's 64-bit offset). */
  private packedEntry(key: Buffer): { pack: PackIndex; offset: number } | null {
    for (const p of this.packs ?? []) {
      const i = packIndexFind(p, key, 0)
      if (i === -1) continue
      const n = p.view.getUint32(8 + 255 * 4)
      const offset = p.view.getUint32(8 + 1024 + n * 24 + i * 4)
      return offset & 0x80000000 ? null : { pack: p, offset }
    }
    return null
  }

  /**
   * A loose object's type and body, here or in a store this one borrows from; null when it is not stored loose
   * (packed, or missing).
   */
  readLoose(sha: string): { type: string; body: Buffer } | null {
    return this.readOwnLoose(sha) ?? this.fromBorrowed((alt) => alt.readLoose(sha))
  }

  /** The first answer of the stores this one borrows from, in alternates order; null when none has one. */
  private fromBorrowed<T>(read: (alt: ObjectStore) => T | null): T | null {
    for (const alt of this.borrowed()) {
      const found = read(alt)
      if (found !== null) return found
    }
    return null
  }

  private readOwnLoose(sha: string): { type: string; body: Buffer } | null {
    let raw: Buffer
    try {
      raw = inflateSync(readFileSync(join(this.objectsDir, sha.slice(0, 2), sha.slice(2))))
    } catch (err) {
      // Packed or missing; anything else (a damaged object) is git's to judge.
      if (!isUnreadable(err)) traceGitFallback(`loose object ${sha} could not be read`, err)
      return null
    }
    const space = raw.indexOf(0x20)
    const nul = raw.indexOf(0)
    if (space <= 0 || nul < space) return null
    const body = raw.subarray(nul + 1)
    if (Number(raw.toString('latin1', space + 1, nul)) !== body.length) return null
    return { type: raw.toString('latin1', 0, space), body }
  }

  /** Stores an object loose unless the store has it already; returns its name (hex). */
  write(type: string, body: Buffer): string {
    const whole = Buffer.concat([Buffer.from(`${type} ${body.length}\0`, 'latin1'), body])
    return this.writeWhole(whole)
  }

  /** Stores an object given with its header ("blob 12\0…"), unless the store has it already. */
  writeWhole(whole: Buffer, sha = hash('sha1', whole, 'hex')): string {
    if (this.ownsAt(Buffer.from(sha, 'hex'), 0)) return sha
    const dir = join(this.objectsDir, sha.slice(0, 2))
    mkdirSync(dir, { recursive: true })
    const temp = join(dir, `tmp_obj_${process.pid}_${randomBytes(4).toString('hex')}`)
    // Loose objects use git's default loose compression (best speed); the name depends on the content only.
    const data = deflateSync(whole, { level: zlib.Z_BEST_SPEED })
    const fd = openSync(temp, 'wx', 0o444)
    try {
      writeSync(fd, data)
      closeSync(fd)
      renameSync(temp, join(dir, sha.slice(2)))
    } catch (err) {
      rmSync(temp, { force: true })
      throw err
    }
    this.looseNames(sha.slice(0, 2)).add(sha.slice(2))
    return sha
  }

  /** Loose object names in one fan-out folder, listed once: a readdir beats a stat per object. */
  private looseNames(fan: string): Set<string> {
    let names = this.looseDirs.get(fan)
    if (!names) {
      try {
        names = new Set(readdirSync(join(this.objectsDir, fan)).filter((n) => n.length === 38))
      } catch (err) {
        names = ifUnreadable(new Set<string>())(err)
      }
      this.looseDirs.set(fan, names)
    }
    return names
  }

  private inPacks(sha: Buffer, at = 0): boolean {
    this.packs ??= this.readPackIndexes()
    for (let i = 0; i < this.packs.length; i++) {
      const idx = this.packs[i]!
      if (!packIndexHas(idx, sha, at)) continue
      // The pack that held one object likely holds the next (git's own lookup works the same way).
      if (i > 0) this.packs.unshift(...this.packs.splice(i, 1))
      return true
    }
    return false
  }

  /**
   * The stores objects/info/alternates names, as git reads that file: one objects folder a line (relative ones
   * from this objects folder), `#` comments, nested up to git's depth of 5. A line this does not read (a quoted
   * path) or a folder that is gone is skipped: an object found nowhere makes the caller ask git, which decides.
   */
  private borrowed(): ObjectStore[] {
    if (this.alternates !== null) return this.alternates
    this.alternates = []
    if (this.depth >= MAX_ALTERNATE_DEPTH) return this.alternates
    let text: string
    try {
      text = readFileSync(join(this.objectsDir, 'info', 'alternates'), 'utf8')
    } catch (err) {
      return ifUnreadable(this.alternates)(err)
    }
    const seen = new Set([resolve(this.objectsDir)])
    for (const line of text.split('\n')) {
      if (line === '' || line.startsWith('#') || line.startsWith('"')) continue
      const dir = resolve(isAbsolute(line) ? line : join(this.objectsDir, line))
      if (seen.has(dir) || !existsSync(dir)) continue
      seen.add(dir)
      this.alternates.push(new ObjectStore('', dir, this.depth + 1))
    }
    return this.alternates
  }

  /** Version-2 pack indexes; a pack whose index is of another kind makes the caller fall back to git. */
  private readPackIndexes(): PackIndex[] {
    const dir = join(this.objectsDir, 'pack')
    let names: string[]
    try {
      names = readdirSync(dir).filter((n) => n.endsWith('.idx'))
    } catch (err) {
      return ifUnreadable([])(err)
    }
    const indexes = names.map((n) => {
      const idx = readFileSync(join(dir, n))
      if (idx.length < 8 + 1024 || idx.readUInt32BE(0) !== 0xff744f63 || idx.readUInt32BE(4) !== 2) {
        throw new UnsupportedStore(`pack index ${n} is not version 2`)
      }
      const pack = join(dir, `${n.slice(0, -4)}.pack`)
      return { pack, idx, view: new DataView(idx.buffer, idx.byteOffset, idx.length) }
    })
    // Largest first: most objects are found in the first pack looked at.
    return indexes.sort((a, b) => b.idx.length - a.idx.length)
  }
}

/**
 * From this many objects a flush writes one pack. Half git's transfer.unpackLimit (100): each loose object is a
 * file created and renamed, which on a busy disk measured 0.1–0.8 ms here, against two files for a pack.
 */
export const LOOSE_LIMIT = 50
/** Git follows alternates of alternates this deep (object-file.c). */
const MAX_ALTERNATE_DEPTH = 5
const PACKED_TYPES: Record<number, string> = { 1: 'commit', 2: 'tree', 3: 'blob', 4: 'tag' }

/** Up to `length` bytes of `file` at `offset` (fewer at its end); null if it cannot be read. */
function readAt(file: string, offset: number, length: number): Buffer | null {
  const out = Buffer.alloc(length)
  const fd = openIfReadable(file)
  if (fd === null) return null
  try {
    const n = readSync(fd, out, 0, length, offset)
    return n > 0 ? out.subarray(0, n) : null
  } finally {
    closeSync(fd)
  }
}

/** A file descriptor for reading `file`, or null when it is missing or unreadable (anything else is thrown). */
export function openIfReadable(file: string): number | null {
  try {
    return openSync(file, 'r')
  } catch (err) {
    return ifUnreadable(null)(err)
  }
}

/** Raised when the store holds something this module does not read: the caller lets git do the work. */
export class UnsupportedStore extends Error {}

/** Binary search in a version-2 pack index: fan-out table, then the sorted 20-byte names. */
interface PackIndex {
  /** The pack file the index describes. */
  pack: string
  idx: Buffer
  /** DataView reads are builtins: cheaper than Buffer methods in code that runs once per process (not yet optimised). */
  view: DataView
}

function packIndexHas(pack: PackIndex, buf: Buffer, from: number): boolean {
  return packIndexFind(pack, buf, from) !== -1
}

/** The object's position in the pack index, or -1. */
function packIndexFind({ idx, view }: PackIndex, buf: Buffer, from: number): number {
  const first = buf[from]!
  let lo = first === 0 ? 0 : view.getUint32(8 + (first - 1) * 4)
  let hi = view.getUint32(8 + first * 4)
  const names = 8 + 1024
  // The first four bytes decide almost every step without a native compare.
  const key = ((buf[from]! << 24) | (buf[from + 1]! << 16) | (buf[from + 2]! << 8) | buf[from + 3]!) >>> 0
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    const at = names + mid * 20
    const head = view.getUint32(at)
    const c = head !== key ? (key < head ? -1 : 1) : compareRest(buf, from, idx, at)
    if (c === 0) return mid
    if (c < 0) hi = mid
    else lo = mid + 1
  }
  return -1
}

/** Bytes 4 to 20 of two names (the first four are equal): a byte loop, cheaper than Buffer#compare's checks. */
function compareRest(a: Buffer, aAt: number, b: Buffer, bAt: number): number {
  for (let k = 4; k < 20; k++) {
    const d = a[aAt + k]! - b[bAt + k]!
    if (d !== 0) return d < 0 ? -1 : 1
  }
  return 0
}
