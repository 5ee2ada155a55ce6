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
 * Subfolders are built first, so this tree's size is known before its bytes are written into one buffer.
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
  const names = leaves.names
  const folders: { first: number; end: number; slash: number; sha: Buffer }[] = []
  let size = 0
  let i = lo
  while (i < hi) {
    const name = names[i]!
    const slash = name.indexOf(SLASH, prefixLen)
    if (slash === -1) {
      size += modeBytes(leaves.mode(i)).length + name.length - prefixLen + 1 + 20
      i++
      continue
    }
    // Every following leaf that starts with the same "folder/" belongs to that folder.
    let j = i + 1
    while (j < hi && startsWithFolder(names[j]!, name, prefixLen, slash)) j++
    const sha = buildDir(leaves, i, j, slash + 1, name.subarray(prefixLen, slash), records)
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
    if (folder !== undefined && folder.first === i) {
      at += TREE_MODE.copy(tree, at)
      at += name.copy(tree, at, prefixLen, folder.slash)
      tree[at++] = 0
      at += folder.sha.copy(tree, at)
      next++
      i = folder.end
    } else {
      at += modeBytes(leaves.mode(i)).copy(tree, at)
      at += name.copy(tree, at, prefixLen)
      tree[at++] = 0
      at += leaves.sha(i).copy(tree, at)
      i++
    }
  }
  const sha = hash('sha1', tree, 'buffer')
  records[slot] = Buffer.concat([dirName, NUL, Buffer.from(`${hi - lo} ${folders.length}\n`), sha])
  return sha
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
