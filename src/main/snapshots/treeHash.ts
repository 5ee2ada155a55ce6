import { hash } from 'node:crypto'
import { traceGitFallback } from './traceGit'

/** The files of an index, in index order: paths in bytes, blob names (20 bytes) and git's modes. */
export interface TreeLeaves {
  names: readonly Buffer[]
  sha(i: number): Buffer
  mode(i: number): number
  /** Copies leaf i's blob name into `out` at `at`, when that is cheaper than a view per leaf. */
  writeSha?(i: number, out: Buffer, at: number): void
}

export interface BuiltTrees {
  /** Name of the root tree. */
  root: Buffer
  /** The index's cache-tree extension ("TREE") payload, so write-tree finds every tree already computed. */
  cacheTree: Buffer
}

/**
 * Computes the tree objects an index holding exactly `leaves` makes, as `git write-tree` would, and the
 * cache-tree extension that records them (gitformat-index(5)). `leaves` must be in index order (bytes of the
 * path): that is also git's order inside each tree, since a folder's entries all start with "name/".
 *
 * Nothing is stored here. A caller must check the root against the trees git stores (a single name covers
 * every blob and tree below it) before it lets git trust the cache-tree.
 */
export function buildTrees(leaves: TreeLeaves, reuse?: Reuse): BuiltTrees {
  const n = leaves.names.length
  const prev = reuse?.previous
  if (prev?.sha && !reuse!.dirty.has('') && prev.entryCount === n)
    return { root: prev.sha, cacheTree: prev.raw }
  const records: Buffer[] = []
  const root = buildDir(leaves, 0, n, 0, EMPTY, records, reuse, prev)
  return { root, cacheTree: Buffer.concat(records) }
}

/**
 * What an incremental build may reuse: the trees of the index's previous cache-tree, for every folder none of
 * whose files changed. `dirty` holds each changed path's folders ('' for the root, "a", "a/b" …, as latin1 of
 * the path's bytes). `onTree` sees every tree computed anew, with the leaves (files) it names directly.
 */
export interface Reuse {
  previous: CacheTreeNode | null
  dirty: ReadonlySet<string>
  onTree(sha: Buffer, tree: Buffer, files: readonly number[]): void
}

/** A folder of a cache-tree (gitformat-index(5), "Cache tree"); `sha` null when git marked it invalid. */
export interface CacheTreeNode {
  entryCount: number
  sha: Buffer | null
  children: Map<string, CacheTreeNode>
  /** The folder's record and all its descendants', as stored: copied as they are when the folder is reused. */
  raw: Buffer
}

/** Parses a TREE extension; null if it is malformed (the caller then computes every tree). */
export function parseCacheTree(data: Buffer): CacheTreeNode | null {
  try {
    const [node, end] = parseNode(data, 0)
    return end === data.length ? node : null
  } catch (err) {
    // A cache-tree this reader does not follow: the trees are computed from scratch instead.
    traceGitFallback('the index cache-tree could not be parsed', err)
    return null
  }
}

function parseNode(data: Buffer, start: number): [CacheTreeNode, number] {
  const nul = data.indexOf(0, start)
  const lf = data.indexOf(0x0a, nul)
  if (nul === -1 || lf === -1) throw new Error('truncated cache-tree')
  const [count, subtrees] = data
    .toString('latin1', nul + 1, lf)
    .split(' ')
    .map(Number) as [number, number]
  if (!Number.isInteger(count) || !Number.isInteger(subtrees) || subtrees < 0) throw new Error('bad record')
  let at = lf + 1
  let sha: Buffer | null = null
  if (count >= 0) {
    sha = data.subarray(at, at + 20)
    if (sha.length !== 20) throw new Error('truncated cache-tree')
    at += 20
  }
  const children = new Map<string, CacheTreeNode>()
  for (let k = 0; k < subtrees; k++) {
    const childNul = data.indexOf(0, at)
    const name = data.toString('latin1', at, childNul)
    const [child, next] = parseNode(data, at)
    children.set(name, child)
    at = next
  }
  return [{ entryCount: count, sha, children, raw: data.subarray(start, at) }, at]
}

const EMPTY = Buffer.alloc(0)
const NUL = Buffer.from([0])
const SLASH = 0x2f
const TREE_MODE = Buffer.from('40000 ')
const modeCache = new Map<number, Buffer>()

/**
 * Builds the tree of leaves[lo, hi), which all start with the same `prefixLen` bytes (the folder's path and
 * its slash). Appends the folder's cache-tree record, then its subfolders' (pre-order, as git writes them).
 * Subfolders are built first, so this tree's size is known before its bytes are written into one buffer.
 */
function buildDir(
  leaves: TreeLeaves,
  lo: number,
  hi: number,
  prefixLen: number,
  dirName: Buffer,
  records: Buffer[],
  reuse?: Reuse,
  prev?: CacheTreeNode | null,
): Buffer {
  const slot = records.push(EMPTY) - 1 // this folder's record precedes its subfolders'; filled in below
  const names = leaves.names
  const folders: { first: number; end: number; slash: number; sha: Buffer }[] = []
  const files: number[] = []
  let size = 0
  let i = lo
  while (i < hi) {
    const name = names[i]!
    const slash = slashFrom(name, prefixLen)
    if (slash === -1) {
      size += modeBytes(leaves.mode(i)).length + name.length - prefixLen + 1 + 20
      if (reuse) files.push(i)
      i++
      continue
    }
    const old = reuse ? prev?.children.get(name.toString('latin1', prefixLen, slash)) : undefined
    let j: number
    let sha: Buffer
    if (
      old?.sha &&
      !reuse!.dirty.has(name.toString('latin1', 0, slash)) &&
      spans(names, i, i + old.entryCount, hi, name, prefixLen, slash)
    ) {
      // Nothing below this folder changed: its tree and cache-tree records are the previous ones.
      j = i + old.entryCount
      sha = old.sha
      records.push(old.raw)
    } else {
      // Every following leaf that starts with the same "folder/" belongs to that folder.
      j = i + 1
      while (j < hi && startsWithFolder(names[j]!, name, prefixLen, slash)) j++
      sha = buildDir(leaves, i, j, slash + 1, name.subarray(prefixLen, slash), records, reuse, old)
    }
    folders.push({ first: i, end: j, slash, sha })
    size += TREE_MODE.length + slash - prefixLen + 1 + 20
    i = j
  }
  const header = `tree ${size}\0`
  const tree = Buffer.allocUnsafe(header.length + size)
  let at = tree.write(header, 0, 'latin1')
  let next = 0
  i = lo
  while (i < hi) {
    const name = names[i]!
    const folder = folders[next]
    // Typed-array `set` of plain views, not Buffer#copy: this runs once per file of every rebuilt folder, in a
    // process whose code is not optimised yet, where Buffer's checks cost several times the copy.
    if (folder !== undefined && folder.first === i) {
      tree.set(TREE_MODE, at)
      at += TREE_MODE.length
      tree.set(bytes(name, prefixLen, folder.slash), at)
      at += folder.slash - prefixLen
      tree[at++] = 0
      tree.set(folder.sha, at)
      at += 20
      next++
      i = folder.end
    } else {
      const mode = modeBytes(leaves.mode(i))
      tree.set(mode, at)
      at += mode.length
      tree.set(bytes(name, prefixLen, name.length), at)
      at += name.length - prefixLen
      tree[at++] = 0
      if (leaves.writeSha) leaves.writeSha(i, tree, at)
      else tree.set(leaves.sha(i), at)
      at += 20
      i++
    }
  }
  const sha = hash('sha1', tree, 'buffer')
  reuse?.onTree(sha, tree, files)
  records[slot] = Buffer.concat([dirName, NUL, Buffer.from(`${hi - lo} ${folders.length}\n`), sha])
  return sha
}

/** Bytes [from, to) of `buf` as a plain view: no Buffer made (Buffer#subarray goes through its constructor). */
export function bytes(buf: Uint8Array, from: number, to: number): Uint8Array {
  return new Uint8Array(buf.buffer, buf.byteOffset + from, to - from)
}

/** The first slash in `name` at or after `from`, or -1 (a byte loop: names are short, the call is per file). */
function slashFrom(name: Buffer, from: number): number {
  for (let k = from; k < name.length; k++) if (name[k] === SLASH) return k
  return -1
}

/** Whether leaves [i, j) are exactly the folder's: a reused record's count must still fit the index. */
function spans(
  names: readonly Buffer[],
  i: number,
  j: number,
  hi: number,
  name: Buffer,
  from: number,
  slash: number,
): boolean {
  return (
    j > i &&
    j <= hi &&
    startsWithFolder(names[j - 1]!, name, from, slash) &&
    (j === hi || !startsWithFolder(names[j]!, name, from, slash))
  )
}

/** Whether `other` starts with `name`'s bytes from `from` up to and including the slash at `slash`. */
function startsWithFolder(other: Buffer, name: Buffer, from: number, slash: number): boolean {
  if (other.length <= slash || other[slash] !== SLASH) return false
  // Folder names are short: a byte loop beats a native compare call here.
  for (let k = from; k < slash; k++) if (other[k] !== name[k]) return false
  return true
}

/** "100644 " and friends: git writes tree modes in octal without leading zeros. */
function modeBytes(mode: number): Buffer {
  let bytes = modeCache.get(mode)
  if (!bytes) {
    bytes = Buffer.from(`${mode.toString(8)} `)
    modeCache.set(mode, bytes)
  }
  return bytes
}
