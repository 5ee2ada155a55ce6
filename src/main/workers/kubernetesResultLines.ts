// A worker's result carried through its pod's log (issue #39): a Kubernetes pod has no API to copy files out short of
// exec (a SPDY/WebSocket stream and a tar in the image), and the log is already followed for the events. So the
// worker (`ralph worker --result-stdout`) ends by printing its result folder as one tar file, base64 in short lines
// between two marker lines that name its size and SHA-256; the coordinator takes those lines out of the event
// stream and checks the digest before unpacking anything. Pure: no I/O here.
import { createHash } from 'node:crypto'
import { AppError } from '../../shared/errors'

const BEGIN = /^==> ralph result: (\d+) bytes, sha256 ([0-9a-f]{64}) <==$/
const END = '==> end of ralph result <=='
/** Short lines: no runtime splits them (CRI splits log lines at 16 KiB). */
const LINE = 76

const sha256 = (b: Buffer): string => createHash('sha256').update(b).digest('hex')

/** The lines that carry `tar` (each without its newline). */
export function resultLines(tar: Buffer): string[] {
  const b64 = tar.toString('base64')
  const lines = [`==> ralph result: ${tar.length} bytes, sha256 ${sha256(tar)} <==`]
  for (let i = 0; i < b64.length; i += LINE) lines.push(b64.slice(i, i + LINE))
  lines.push(END)
  return lines
}

/** Takes the result's lines out of a log, line by line; every other line is the caller's. */
export class ResultCollector {
  private expected: { size: number; digest: string } | null = null
  private parts: string[] = []
  private done = false
  private size = 0

  /** True when the line belonged to the result (the caller does not treat it as an event). */
  take(line: string): boolean {
    if (this.expected === null || this.done) {
      const m = BEGIN.exec(line)
      if (!m) return false
      this.expected = { size: Number(m[1]), digest: m[2]! }
      this.parts = []
      this.size = 0
      this.done = false
      return true
    }
    if (line === END) {
      this.done = true
      return true
    }
    this.parts.push(line)
    this.size += line.length
    return true
  }

  /** The base64 characters received so far (the caller bounds a result's size with it). */
  get receivedChars(): number {
    return this.size
  }

  /** The result's tar, checked against its size and digest; null when the log held no result. */
  finish(): Buffer | null {
    if (this.expected === null) return null
    if (!this.done)
      throw new AppError(
        'invalid-input',
        "The worker's result was cut off in its pod's log (no end marker): nothing was taken from it.",
      )
    const tar = Buffer.from(this.parts.join(''), 'base64')
    if (tar.length !== this.expected.size || sha256(tar) !== this.expected.digest)
      throw new AppError(
        'invalid-input',
        `The worker's result in its pod's log does not match its digest (${tar.length} of ${this.expected.size} ` +
          'bytes): nothing was taken from it.',
      )
    return tar
  }
}
