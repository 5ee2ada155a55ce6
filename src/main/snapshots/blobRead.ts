import { readSync } from 'node:fs'

/**
 * Reads an open file's `size` bytes right behind git's blob header ("blob N\0"), in one buffer (`scratch` when
 * it fits), so the object's name is hashed from it as is. `filled` is less than `size` when the file shrank
 * while being read.
 */
export function readBehindHeader(
  fd: number,
  size: number,
  scratch: Buffer,
): { buf: Buffer; headerLength: number; filled: number } {
  const header = `blob ${size}\0`
  const buf = header.length + size <= scratch.length ? scratch : Buffer.allocUnsafe(header.length + size)
  buf.write(header, 0, 'latin1')
  let filled = 0
  while (filled < size) {
    const n = readSync(fd, buf, header.length + filled, size - filled, null)
    if (n === 0) break
    filled += n
  }
  return { buf, headerLength: header.length, filled }
}
