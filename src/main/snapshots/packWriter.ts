import { hash, randomBytes } from 'node:crypto'
import { closeSync, openSync, renameSync, rmSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import { crc32, deflateSync, constants as zlib } from 'node:zlib'

/** An object to pack: its name (20 bytes) and its whole text, header ("blob 12\0") included. */
export interface PackObject {
  sha: Buffer
  whole: Buffer
}

const TYPES: Record<string, number> = { commit: 1, tree: 2, blob: 3, tag: 4 }

/**
 * Writes `objects` as one pack with its version-2 index (gitformat-pack(5)) into `objects/pack`. A few hundred
 * objects written as loose files cost a create and a rename each, which on slow file systems is most of a
 * save; one pack is two files. The pack is renamed into place before its index, and git only sees a pack
 * through its index: a crash leaves either nothing visible or a complete pack.
 */
export function writePack(objectsDir: string, objects: readonly PackObject[]): void {
  const parts: Buffer[] = []
  const header = Buffer.alloc(12)
  header.write('PACK', 0, 'latin1')
  header.writeUInt32BE(2, 4)
  header.writeUInt32BE(objects.length, 8)
  parts.push(header)
  let offset = 12
  const entries = objects.map(({ sha, whole }) => {
    const nul = whole.indexOf(0)
    const space = whole.indexOf(0x20)
    const type = TYPES[whole.toString('latin1', 0, space)]
    if (type === undefined || nul === -1) throw new Error('not a git object')
    const body = whole.subarray(nul + 1)
    const packed = Buffer.concat([objectHeader(type, body.length), zlibStream(body)])
    const entry = { sha, offset, crc: crc32(packed) }
    parts.push(packed)
    offset += packed.length
    return entry
  })
  if (offset >= 0x80000000) throw new Error('pack too large for 32-bit offsets')
  const pack = Buffer.concat(parts)
  const checksum = hash('sha1', pack, 'buffer')

  entries.sort((a, b) => Buffer.compare(a.sha, b.sha))
  const n = entries.length
  const idx = Buffer.alloc(8 + 1024 + n * 28 + 40)
  idx.writeUInt32BE(0xff744f63, 0)
  idx.writeUInt32BE(2, 4)
  // Fan-out: entry b counts the names whose first byte is at most b (counted once, then summed).
  const firsts = new Uint32Array(256)
  for (const e of entries) firsts[e.sha[0]!]!++
  for (let b = 0, total = 0; b < 256; b++) idx.writeUInt32BE((total += firsts[b]!), 8 + b * 4)
  entries.forEach((e, i) => {
    e.sha.copy(idx, 8 + 1024 + i * 20)
    idx.writeUInt32BE(e.crc, 8 + 1024 + n * 20 + i * 4)
    idx.writeUInt32BE(e.offset, 8 + 1024 + n * 24 + i * 4)
  })
  checksum.copy(idx, 8 + 1024 + n * 28)
  hash('sha1', idx.subarray(0, idx.length - 20), 'buffer').copy(idx, idx.length - 20)

  const dir = join(objectsDir, 'pack')
  const name = `pack-${checksum.toString('hex')}`
  const tag = `${process.pid}_${randomBytes(4).toString('hex')}`
  const tempPack = join(dir, `tmp_pack_${tag}`)
  const tempIdx = join(dir, `tmp_idx_${tag}`)
  try {
    writeFile(tempPack, Buffer.concat([pack, checksum]))
    writeFile(tempIdx, idx)
    renameSync(tempPack, join(dir, `${name}.pack`))
    renameSync(tempIdx, join(dir, `${name}.idx`))
  } catch (err) {
    rmSync(tempPack, { force: true })
    rmSync(tempIdx, { force: true })
    throw err
  }
}

function writeFile(file: string, data: Buffer): void {
  const fd = openSync(file, 'wx', 0o444)
  try {
    let at = 0
    while (at < data.length) at += writeSync(fd, data, at)
  } finally {
    closeSync(fd)
  }
}

/** Type and size: 3 bits of type and 4 of size, then 7 bits of size a byte, least significant first. */
function objectHeader(type: number, size: number): Buffer {
  const bytes = [(type << 4) | (size & 15)]
  let rest = Math.floor(size / 16)
  while (rest > 0) {
    bytes[bytes.length - 1]! |= 0x80
    bytes.push(rest & 0x7f)
    rest = Math.floor(rest / 128)
  }
  return Buffer.from(bytes)
}

// Below this size an object is stored without compression: starting zlib costs more than it saves here.
const STORE_BELOW = 16 * 1024

/** A zlib stream of `data`: small objects as "stored" deflate blocks, larger ones compressed. */
function zlibStream(data: Buffer): Buffer {
  if (data.length >= STORE_BELOW) return deflateSync(data, { level: zlib.Z_BEST_SPEED })
  const out = Buffer.alloc(2 + 5 + data.length + 4)
  out[0] = 0x78
  out[1] = 0x01
  out[2] = 1 // one final block, stored
  out.writeUInt16LE(data.length, 3)
  out.writeUInt16LE(~data.length & 0xffff, 5)
  data.copy(out, 7)
  out.writeUInt32BE(adler32(data), 7 + data.length)
  return out
}

function adler32(data: Buffer): number {
  let a = 1
  let b = 0
  for (let i = 0; i < data.length; ) {
    // 5552 bytes is the most that can be summed before the 32-bit sums must be reduced (zlib's NMAX).
    const end = Math.min(i + 5552, data.length)
    for (; i < end; i++) {
      a += data[i]!
      b += a
    }
    a %= 65521
    b %= 65521
  }
  return ((b << 16) | a) >>> 0
}
