import { closeSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { readRef } from '../snapshots'

export type RefUpdate = 'updated' | 'moved' | 'locked'

/**
 * Moves `ref` to `next` only if it still names `expected` (null: the ref must not exist), without starting git.
 * Git's own protocol, so a concurrent `git update-ref` and this exclude each other: take `<ref>.lock` with an
 * exclusive create, check the current value under the lock, write the new one into the lock file, rename it over
 * the ref. 'moved': another writer got there first; 'locked': another writer holds the lock right now.
 */
export async function updateRefIfUnchanged(
  gitDir: string,
  ref: string,
  next: string,
  expected: string | null,
): Promise<RefUpdate> {
  const file = join(gitDir, ref)
  const lock = `${file}.lock`
  mkdirSync(dirname(file), { recursive: true })
  let fd: number
  try {
    fd = openSync(lock, 'wx', 0o644)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return 'locked'
    throw err
  }
  let renamed = false
  try {
    if ((await readRef(gitDir, ref)) !== expected) return 'moved'
    writeSync(fd, `${next}\n`)
    closeSync(fd)
    fd = -1
    renameSync(lock, file)
    renamed = true
    return 'updated'
  } finally {
    if (fd !== -1) closeSync(fd)
    if (!renamed) rmSync(lock, { force: true })
  }
}
