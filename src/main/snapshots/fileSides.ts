import { lstat, readFile, readlink } from 'node:fs/promises'
import { join } from 'node:path'
import { type Logger, unlessMissing } from '../workspace'
import type { FileSide } from './types'

// One side of a file diff: a file's content for the diff viewer, or a placeholder when large or binary.

export const ABSENT: FileSide = { exists: false, size: 0, binary: false, tooLarge: false, content: null }

export function tooLargeSide(size: number): FileSide {
  return { exists: true, size, binary: false, tooLarge: true, content: null }
}

export function isBinary(buf: Buffer): boolean {
  return buf.subarray(0, 8000).includes(0)
}

export function sideFromBuffer(buf: Buffer): FileSide {
  const binary = isBinary(buf)
  return {
    exists: true,
    size: buf.length,
    binary,
    tooLarge: false,
    content: binary ? null : buf.toString('utf8'),
  }
}

/** The working tree's side: a symlink shows its target, a folder or a missing path shows as absent. */
export async function worktreeSide(
  projectDir: string,
  rel: string,
  maxBytes: number,
  log: Logger,
): Promise<FileSide> {
  const file = join(projectDir, rel)
  const st = await lstat(file).catch(unlessMissing(log, `Could not examine ${rel} for its diff`, null))
  if (!st || st.isDirectory()) return { ...ABSENT }
  if (st.isSymbolicLink()) return sideFromBuffer(Buffer.from(await readlink(file)))
  if (st.size > maxBytes) return tooLargeSide(st.size)
  return sideFromBuffer(await readFile(file))
}
