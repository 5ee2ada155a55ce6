import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { FIXED, indexHeader, readExtensions, readOffsetVarint } from './indexRead'
import { ifUnreadable } from '../workspace'

/** What a staging pass needs from the index before deciding whether to start git at all. */
export interface IndexPeek {
  entries: number
  /** The tree the index's cache-tree names for all of it (what write-tree would print); null when invalid. */
  tree: string | null
  /** The tracked paths under the prefix asked for. */
  under: Set<string>
}

/**
 * Reads only what `peekIndex`'s callers need from the shadow index: the entry count, the cache-tree's root and
 * the paths under one prefix (`.ralph/`). A full parse (indexRead.ts) builds every name and costs more than
 * starting git in a fresh process; this walks the entries by their terminators and builds names only up to the
 * end of the prefix's range. Null for anything unusual (the caller then lets git do the work, as before).
 */
export function peekIndex(indexDir: string, prefix: string): IndexPeek | null {
  let buf: Buffer
  try {
    buf = readFileSync(join(indexDir, 'index'))
  } catch (err) {
    return ifUnreadable(null)(err)
  }
  const header = indexHeader(buf)
  if (!header) return null
  const { version, count, end } = header
  const want = Buffer.from(prefix, 'utf8')
  const under = new Set<string>()
  // Names sort by bytes: once one sorts after the prefix's range, no later one is in it.
  let collecting = true
  let prev: Buffer = Buffer.alloc(0)
  let at = 12
  for (let i = 0; i < count; i++) {
    if (at + FIXED > end) return null
    // Assume-valid, extended flags or a conflict stage: not a plain shadow index.
    if ((buf[at + 60]! & 0xf0) !== 0) return null
    let p = at + FIXED
    let name: Buffer | null = null
    if (version === 4) {
      const { value: drop, next } = readOffsetVarint(buf, p)
      p = next
      const nul = buf.indexOf(0, p)
      if (nul === -1 || nul >= end) return null
      if (collecting) {
        if (drop > prev.length) return null
        name = Buffer.concat([prev.subarray(0, prev.length - drop), buf.subarray(p, nul)])
        prev = name
      }
      at = nul + 1
    } else {
      const nul = buf.indexOf(0, p)
      if (nul === -1 || nul >= end) return null
      if (collecting) name = buf.subarray(p, nul)
      at += (FIXED + nul - p + 8) & ~7
    }
    if (name !== null) {
      if (name.length >= want.length && name.compare(want, 0, want.length, 0, want.length) === 0) {
        under.add(name.toString('utf8'))
      } else if (Buffer.compare(name, want) > 0) {
        collecting = false
      }
    }
  }
  const extensions = readExtensions(buf, at, end)
  if (extensions === null) return null
  let tree: string | null = null
  for (const e of extensions) if (e.signature === 'TREE') tree = cacheTreeRoot(e.data, count)
  return { entries: count, tree, under }
}

/** The root of a cache-tree extension (`\0<entries> <subtrees>\n<sha>`) when it covers all `count` entries. */
function cacheTreeRoot(data: Buffer, count: number): string | null {
  if (data.length < 1 || data[0] !== 0) return null
  const space = data.indexOf(0x20, 1)
  const newline = data.indexOf(0x0a, 1)
  if (space === -1 || newline === -1 || space > newline) return null
  const entries = Number(data.toString('latin1', 1, space))
  if (entries !== count || newline + 21 > data.length) return null
  return data.toString('hex', newline + 1, newline + 21)
}
