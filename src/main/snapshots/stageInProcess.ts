import { hash } from 'node:crypto'
import { type BigIntStats, closeSync, constants, fstatSync, lstatSync, openSync, readlinkSync } from 'node:fs'
import { join } from 'node:path'
import { readBehindHeader } from './blobRead'
import { noChanges, tally } from './diffParse'
import { entryFixedPart, indexMode, writeIndexFile, writePatchedIndex } from './indexFile'
import { FIXED, readIndex, type IndexExtension, type ParsedIndex } from './indexRead'
import { ObjectStore } from './objectStore'
import { buildTrees, bytes, parseCacheTree, type BuiltTrees, type CacheTreeNode } from './treeHash'
import type { ChangeCounts, SkippedFile } from './types'

/** What one staging pass must bring into the index (the same lists the update-index path is given). */
export interface StagePlan {
  /** Paths to bring up to date: a file or symlink is (re)stored, a path that is gone leaves the index. */
  toAdd: readonly string[]
  /** Paths that must leave the index although they may exist (excluded, over the cap, now a folder). */
  toRemove: ReadonlySet<string>
  /** Nested repositories: every file tracked below them leaves the index. */
  nestedRepos: readonly string[]
}

export interface InProcessStaged {
  /** The root tree of the index written, stored with every tree below it. */
  tree: string
  /** The tree the index held before this pass (from its cache-tree), or null if unknown: `changes` is since it. */
  previousTree: string | null
  changes: ChangeCounts
  /** Files that could not be read (permissions): left as they were in the index, reported as skipped. */
  unreadable: SkippedFile[]
}

/** Thrown inside this module for anything it leaves to git; the message says why (RALPH_TRACE_GIT prints it). */
class Fallback extends Error {}

/**
 * Stages changed paths without starting git: reads the index, stores the changed blobs (loose, or one pack from
 * LOOSE_LIMIT objects on), recomputes only the trees above them (the index's cache-tree names every other one),
 * and writes the index through git's lock — what `update-index` followed by `write-tree` does, at a fraction of
 * the cost of starting them on a large index. Returns a string (why) instead when the store or index holds anything this path does
 * not handle; nothing has been written then but unreferenced objects, and the caller lets git do the work.
 *
 * Same checks as git's: an entry whose stat data matches is not read again unless it is "racily clean" (modified
 * in the second the index was written), and every blob a recomputed tree names must exist in the store.
 */
export function stageInProcess(
  gitDir: string,
  projectDir: string,
  plan: StagePlan,
): InProcessStaged | string {
  try {
    return stage(gitDir, projectDir, plan)
  } catch (err) {
    if (err instanceof Fallback) return err.message
    return `unexpected: ${(err as Error).message}`
  }
}

interface Entry {
  name: Buffer
  fixed: Buffer
}

function stage(gitDir: string, projectDir: string, plan: StagePlan): InProcessStaged {
  const index = readIndex(gitDir)
  if (index === null) throw new Fallback('index not readable in-process')
  const { names, offsets, entries } = index
  const fixedAt = (i: number): Buffer => entries.subarray(offsets[i]!, offsets[i]! + FIXED)
  const store = new ObjectStore(gitDir)
  // Keyed by the path's bytes (latin1): null = leaves the index.
  const changed = new Map<string, Entry | null>()
  const counts = noChanges()
  // The untracked cache stays valid unless a path that exists on disk enters or leaves the index (git then
  // invalidates its folders; without the extension, the next status rebuilds it).
  let keepUntrackedCache = true

  const remove = (name: Buffer): void => {
    const key = name.toString('latin1')
    if (changed.get(key) === null) return
    if (find(names, name) >= 0) changed.set(key, null)
  }
  for (const repo of plan.nestedRepos) {
    const prefix = Buffer.from(`${repo}/`, 'utf8')
    for (let i = lowerBound(names, prefix); i < names.length && startsWith(names[i]!, prefix); i++) {
      remove(names[i]!)
      keepUntrackedCache = false
    }
  }
  for (const path of plan.toRemove) {
    const name = Buffer.from(path, 'utf8')
    if (find(names, name) >= 0) keepUntrackedCache = false
    remove(name)
  }

  // Entries modified in (or after) the second the index was written may have changed since without their stat
  // data showing it: git re-reads them before writing an index that would make them look clean, and so does this.
  const paths = new Set(plan.toAdd)
  for (let i = 0; i < names.length; i++) {
    if (u32At(entries, offsets[i]! + 8) < index.mtimeSeconds) continue
    const path = names[i]!.toString('utf8')
    if (!Buffer.from(path, 'utf8').equals(names[i]!)) throw new Fallback('a racy entry is not UTF-8')
    paths.add(path)
  }

  const unreadable: SkippedFile[] = []
  const scratch = Buffer.allocUnsafe(64 * 1024)
  for (const path of paths) {
    const name = Buffer.from(path, 'utf8')
    const key = name.toString('latin1')
    if (changed.has(key)) continue
    const at = find(names, name)
    const old = at >= 0 ? fixedAt(at) : null
    const file = readEntry(join(projectDir, path), old, index.mtimeSeconds, scratch)
    if (file === 'gone') {
      if (old) changed.set(key, null)
      continue
    }
    if (file === 'unchanged') continue
    if (file === 'unreadable') {
      unreadable.push({ path, reason: 'unreadable' })
      continue
    }
    const sha = hash('sha1', file.object, 'buffer')
    const entry = { name, fixed: entryFixedPart(file.stat, sha, name.length) }
    if (old === null) keepUntrackedCache = false
    // Same content and mode: only the stat data is refreshed; anything else stores the blob.
    if (old === null || !sameContent(old, entry.fixed)) store.add(file.object, sha)
    changed.set(key, entry)
  }

  const treeExt = index.extensions.find((e) => e.signature === 'TREE')
  const previous = treeExt ? parseCacheTree(treeExt.data) : null
  const previousTree =
    previous?.sha && previous.entryCount === names.length ? previous.sha.toString('hex') : null
  // Nothing to record: the index stays as it is (its cache-tree already names the tree).
  if (changed.size === 0 && previousTree !== null) {
    return { tree: previousTree, previousTree, changes: counts, unreadable }
  }

  const next = merge(names, entries, offsets, changed)
  const dirty = countChanges(names, fixedAt, changed, counts)
  const built = buildChangedTrees(next, previous, dirty, store)

  // Objects first: an index naming objects the store lacks must never be visible.
  store.flush()
  const extensions: IndexExtension[] = [{ signature: 'TREE', data: built.cacheTree }]
  const untracked = index.extensions.find((e) => e.signature === 'UNTR')
  if (untracked && keepUntrackedCache) extensions.push(untracked)
  writeStagedIndex(gitDir, index, next, changed, extensions)
  return { tree: built.root.toString('hex'), previousTree, changes: counts, unreadable }
}

type Merged = ReturnType<typeof merge>

/** Counts what changed (into `counts`) and gives the folders whose trees must be recomputed ('' is the root). */
function countChanges(
  names: readonly Buffer[],
  fixedAt: (i: number) => Buffer,
  changed: Map<string, Entry | null>,
  counts: ChangeCounts,
): Set<string> {
  const dirty = new Set<string>()
  for (const [key, entry] of changed) {
    const at = find(names, Buffer.from(key, 'latin1'))
    const old = at >= 0 ? fixedAt(at) : null
    // The key is the path's UTF-8 bytes as latin1: the ASCII prefix .ralph/ reads the same.
    if (entry === null) tally(counts, 'deleted', key)
    else if (old === null) tally(counts, 'added', key)
    else if (!sameContent(old, entry.fixed)) tally(counts, 'modified', key)
    else continue // stat data only: no tree changes
    dirty.add('')
    for (let slash = key.indexOf('/'); slash !== -1; slash = key.indexOf('/', slash + 1)) {
      dirty.add(key.slice(0, slash))
    }
  }
  return dirty
}

/** Recomputes the dirty trees of the merged index and adds each to the store (not yet flushed). */
function buildChangedTrees(
  next: Merged,
  previous: CacheTreeNode | null,
  dirty: Set<string>,
  store: ObjectStore,
): BuiltTrees {
  return buildTrees(
    {
      names: next.names,
      sha: (i) => next.src[i]!.subarray(next.at[i]! + 40, next.at[i]! + 60),
      mode: (i) => u32At(next.src[i]!, next.at[i]! + 24),
      writeSha: (i, out, at) => out.set(bytes(next.src[i]!, next.at[i]! + 40, next.at[i]! + 60), at),
    },
    {
      previous,
      dirty,
      onTree(sha, tree, files) {
        // As write-tree: a tree is only written when every blob it names is stored.
        const missing = store.firstMissingAt(
          files.map((i) => next.src[i]!),
          files.map((i) => next.at[i]! + 40),
        )
        if (missing !== -1) {
          const i = files[missing]!
          const sha = next.src[i]!.toString('hex', next.at[i]! + 40, next.at[i]! + 60)
          throw new Fallback(`the store lacks ${sha} (${next.names[i]})`)
        }
        store.add(tree, sha)
      },
    },
  )
}

/** Writes the new index through git's lock: patched in place when only entries changed, else written whole. */
function writeStagedIndex(
  gitDir: string,
  index: ParsedIndex,
  next: Merged,
  changed: Map<string, Entry | null>,
  extensions: IndexExtension[],
): void {
  const { names, offsets } = index
  try {
    const replacements = [...changed.values()].every((e) => e !== null && find(names, e.name) >= 0)
    if (replacements) {
      // Same paths (files only modified): the entries are copied as read, with the changed ones patched.
      const patches = [...changed.values()].map((e) => {
        const at = find(names, e!.name)
        return { offset: offsets[at]!, fixed: e!.fixed }
      })
      writePatchedIndex(gitDir, index.entries, patches, extensions)
    } else {
      const fixedPart = (i: number) => next.src[i]!.subarray(next.at[i]!, next.at[i]! + FIXED)
      writeIndexFile(gitDir, next.names, fixedPart, extensions)
    }
  } catch (err) {
    throw new Fallback(`could not write the index: ${(err as Error).message}`)
  }
}

type Read = { object: Buffer; stat: BigIntStats } | 'gone' | 'unchanged' | 'unreadable'

/**
 * A file or symlink as a blob object ("blob N\0" and the bytes) with the stat data taken before it was read, as
 * git's update-index records it. 'unchanged' when the index entry's stat data still matches and is not racy.
 */
function readEntry(full: string, old: Buffer | null, indexSeconds: number, scratch: Buffer): Read {
  let st: BigIntStats
  try {
    st = lstatSync(full, { bigint: true })
  } catch (err) {
    if (isGone(err)) return 'gone'
    throw err
  }
  if (old && old.readUInt32BE(8) < indexSeconds && statMatches(old, st)) return 'unchanged'
  if (st.isSymbolicLink()) {
    return { object: blobObject(readlinkSync(full, { encoding: 'buffer' })), stat: st }
  }
  if (!st.isFile()) throw new Fallback(`${full} is neither a file nor a symlink`)
  let fd: number
  try {
    // O_NONBLOCK: a path swapped for a named pipe since the lstat above opens at once (fstat then refuses it).
    fd = openSync(full, constants.O_RDONLY | constants.O_NOFOLLOW | (constants.O_NONBLOCK ?? 0))
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    if (code === 'EACCES' || code === 'EPERM') return 'unreadable'
    if (isGone(err)) return 'gone'
    throw err
  }
  try {
    const stat = fstatSync(fd, { bigint: true })
    if (!stat.isFile()) throw new Fallback(`${full} changed type while being read`)
    const size = Number(stat.size)
    const { buf, headerLength, filled } = readBehindHeader(fd, size, scratch)
    // Shrank while being read: store what is there; its stat data makes the next pass read it again.
    if (filled < size) return { object: blobObject(buf.subarray(headerLength, headerLength + filled)), stat }
    return { object: Buffer.from(buf.subarray(0, headerLength + size)), stat }
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    if (code === 'EACCES' || code === 'EPERM' || code === 'EISDIR') return 'unreadable'
    throw err
  } finally {
    closeSync(fd)
  }
}

/** A big-endian 32-bit field by byte arithmetic: Buffer#readUInt32BE's checks cost more, once per entry, cold. */
function u32At(buf: Buffer, at: number): number {
  return ((buf[at]! << 24) | (buf[at + 1]! << 16) | (buf[at + 2]! << 8) | buf[at + 3]!) >>> 0
}

function blobObject(body: Buffer): Buffer {
  return Buffer.concat([Buffer.from(`blob ${body.length}\0`, 'latin1'), body])
}

function isGone(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException).code
  return code === 'ENOENT' || code === 'ENOTDIR'
}

const u32 = (v: bigint): number => Number(BigInt.asUintN(32, v))
const NS = 1_000_000_000n

/** The stat fields git compares (ctime, mtime, inode, mode, owner, size), at the precision the index keeps. */
function statMatches(entry: Buffer, st: BigIntStats): boolean {
  return (
    entry.readUInt32BE(0) === u32(st.ctimeNs / NS) &&
    entry.readUInt32BE(4) === Number(st.ctimeNs % NS) &&
    entry.readUInt32BE(8) === u32(st.mtimeNs / NS) &&
    entry.readUInt32BE(12) === Number(st.mtimeNs % NS) &&
    entry.readUInt32BE(20) === u32(st.ino) &&
    entry.readUInt32BE(24) === indexMode(st) &&
    entry.readUInt32BE(28) === u32(st.uid) &&
    entry.readUInt32BE(32) === u32(st.gid) &&
    entry.readUInt32BE(36) === u32(st.size)
  )
}

/** Same blob name and mode. */
function sameContent(a: Buffer, b: Buffer): boolean {
  return a.readUInt32BE(24) === b.readUInt32BE(24) && a.compare(b, 40, 60, 40, 60) === 0
}

/**
 * The new index: the old entries in order, with changes applied and new paths merged in. A new path that would
 * sit under a file, or a file where folders are (a file/folder conflict), is left to git. Entry i's fixed part
 * is at `at[i]` in `src[i]`: the old index's bytes, or a changed entry's own buffer.
 */
function merge(
  names: readonly Buffer[],
  entries: Buffer,
  offsets: Uint32Array,
  changed: Map<string, Entry | null>,
): { names: Buffer[]; src: Buffer[]; at: number[] } {
  const added: Entry[] = []
  const replaced = new Map<number, Entry | null>()
  for (const [key, entry] of changed) {
    const at = find(names, Buffer.from(key, 'latin1'))
    if (at >= 0) replaced.set(at, entry)
    else if (entry) added.push(entry)
  }
  added.sort((a, b) => Buffer.compare(a.name, b.name))
  const out = { names: [] as Buffer[], src: [] as Buffer[], at: [] as number[] }
  let k = 0
  for (let i = 0; i <= names.length; i++) {
    while (k < added.length && (i === names.length || Buffer.compare(added[k]!.name, names[i]!) < 0)) {
      out.names.push(added[k]!.name)
      out.src.push(added[k]!.fixed)
      out.at.push(0)
      k++
    }
    if (i === names.length) break
    const r = replaced.get(i)
    if (r === null) continue
    out.names.push(names[i]!)
    out.src.push(r ? r.fixed : entries)
    out.at.push(r ? 0 : offsets[i]!)
  }
  for (const entry of added) {
    const name = entry.name
    for (let slash = name.indexOf(0x2f); slash !== -1; slash = name.indexOf(0x2f, slash + 1)) {
      if (find(out.names, name.subarray(0, slash)) >= 0) throw new Fallback('a new path sits under a file')
    }
    const below = Buffer.concat([name, SLASH])
    const at = lowerBound(out.names, below)
    if (at < out.names.length && startsWith(out.names[at]!, below))
      throw new Fallback('a new file replaces a folder')
  }
  return out
}

const SLASH = Buffer.from('/')

/** The position of `name` in the sorted `names`, or -1. */
function find(names: readonly Buffer[], name: Buffer): number {
  const at = lowerBound(names, name)
  return at < names.length && names[at]!.equals(name) ? at : -1
}

/** The first position whose name is not below `name` (bytes order, as git sorts the index). */
function lowerBound(names: readonly Buffer[], name: Buffer): number {
  let lo = 0
  let hi = names.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (Buffer.compare(names[mid]!, name) < 0) lo = mid + 1
    else hi = mid
  }
  return lo
}

function startsWith(name: Buffer, prefix: Buffer): boolean {
  return name.length >= prefix.length && name.compare(prefix, 0, prefix.length, 0, prefix.length) === 0
}
