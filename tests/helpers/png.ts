// Small real PNG files for tests, built here (signature, IHDR, IDAT, IEND with their CRCs).
import { crc32, deflateSync } from 'node:zlib'

/** One PNG chunk: its length, type, data and CRC. */
export function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4)
  length.writeUInt32BE(data.length)
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data])
  const crc = Buffer.alloc(4)
  crc.writeUInt32BE(crc32(body))
  return Buffer.concat([length, body, crc])
}

/** A valid width×height RGBA PNG of one colour (default 1×1 red). */
export function solidPng(
  width = 1,
  height = 1,
  rgba: [number, number, number, number] = [255, 0, 0, 255],
): Buffer {
  const ihdr = Buffer.alloc(13)
  ihdr.writeUInt32BE(width, 0)
  ihdr.writeUInt32BE(height, 4)
  ihdr[8] = 8 // bit depth
  ihdr[9] = 6 // colour type RGBA
  const row = Buffer.concat([Buffer.from([0]), Buffer.from(Array.from({ length: width }, () => rgba).flat())])
  const raw = Buffer.concat(Array.from({ length: height }, () => row))
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', ihdr),
    pngChunk('IDAT', deflateSync(raw)),
    pngChunk('IEND', Buffer.alloc(0)),
  ])
}

/** A PNG padded past `bytes` with a trailing chunk of zeros (still starts as a PNG; too large to attach). */
export function pngOfSize(bytes: number): Buffer {
  const png = solidPng()
  return Buffer.concat([png, Buffer.alloc(Math.max(0, bytes - png.length))])
}

/**
 * A PNG whose header says width×height but whose pixel data holds one row: what a decoder reads before any pixel
 * (a 16000×16000 image costs bytes here, not the gigabyte it would take to decode).
 */
export function pngHeaderOfSize(width: number, height: number): Buffer {
  const ihdr = Buffer.alloc(13)
  ihdr.writeUInt32BE(width, 0)
  ihdr.writeUInt32BE(height, 4)
  ihdr[8] = 8
  ihdr[9] = 6
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', ihdr),
    pngChunk('IDAT', deflateSync(Buffer.alloc(1 + width * 4))),
    pngChunk('IEND', Buffer.alloc(0)),
  ])
}
