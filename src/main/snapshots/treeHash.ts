import { hash } from 'node:crypto'

/** The files of an index, in index order: paths in bytes, blob names (20 bytes) and git's modes. */
export interface TreeLeaves {
  names: readonly Buffer[]
  sha(i: number): Buffer
  mode(i: number): number
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
export function buildTrees(leaves: TreeLeaves): BuiltTrees {
  const records: Buffer[] = []
  const root = buildDir(leaves, 0, leaves.names.length, 0, EMPTY, records)
  return { root, cacheTree: Buffer.concat(records) }
}

const EMPTY = Buffer.alloc(0)
const NUL = Buffer.from([0])
const SLASH = 0x2f
const TREE_MODE = Buffer.from('40000 ')
const modeCache = new Map<number, Buffer>()

/**
 * Builds the tree of leaves[lo, hi), which all start with the same `prefixLen` bytes (the folder's path and
 * its slash). Appends the folder's cache-tree record, then its subfolders' (pre-order, as git writes them).
 */
function buildDir(
  leaves: TreeLeaves,
  lo: number,
  hi: number,
  prefixLen: number,
  dirName: Buffer,
  records: Buffer[],
): Buffer {
  const slot = records.push(EMPTY) - 1 // this folder's record precedes its subfolders'; filled in below
  const parts: Buffer[] = []
  let subtrees = 0
  let i = lo
  while (i < hi) {
    const name = leaves.names[i]!
    const slash = name.indexOf(SLASH, prefixLen)
    if (slash === -1) {
      parts.push(modeBytes(leaves.mode(i)), name.subarray(prefixLen), NUL, leaves.sha(i))
      i++
      continue
    }
    // Every following leaf that starts with the same "folder/" belongs to that folder.
    let j = i + 1
    while (j < hi && startsWithFolder(leaves.names[j]!, name, prefixLen, slash)) j++
    const folder = name.subarray(prefixLen, slash)
    const sha = buildDir(leaves, i, j, slash + 1, folder, records)
    parts.push(TREE_MODE, folder, NUL, sha)
    subtrees++
    i = j
  }
  const content = Buffer.concat(parts)
  const sha = hash('sha1', Buffer.concat([Buffer.from(`tree ${content.length}\0`), content]), 'buffer')
  records[slot] = Buffer.concat([dirName, NUL, Buffer.from(`${hi - lo} ${subtrees}\n`), sha])
  return sha
}

/** Whether `other` starts with `name`'s bytes up to and including the slash at `slash`. */
function startsWithFolder(other: Buffer, name: Buffer, from: number, slash: number): boolean {
  return other.length > slash && other[slash] === SLASH && other.compare(name, from, slash, from, slash) === 0
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
