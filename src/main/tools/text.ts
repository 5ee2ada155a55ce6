// Shared text helpers: binary detection and truncation notes that tell the model how to get the rest.

/** Same rule as git and the snapshot engine: a NUL byte in the first 8000 bytes means binary. */
export function looksBinary(buf: Uint8Array): boolean {
  return buf.subarray(0, 8000).includes(0)
}

/** Keeps the first `head` and last `tail` characters, with a note saying how much was cut in between. */
export function truncateMiddle(text: string, head: number, tail: number, hint = ''): string {
  if (text.length <= head + tail) return text
  const omitted = text.length - head - tail
  return (
    `${text.slice(0, head)}\n[… ${omitted} characters omitted${hint ? `; ${hint}` : ''} …]\n` +
    text.slice(text.length - tail)
  )
}

/** Shortens one long line for listings (grep matches, numbered lines). */
export function clipLine(line: string, max: number): string {
  return line.length <= max ? line : `${line.slice(0, max)}… [line truncated, ${line.length} characters]`
}

export { plural } from '../../shared/format'

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`
  return `${(n / 1024 / 1024).toFixed(1)} MB`
}
