import { copyFile, mkdir, mkdtemp, rm, stat, utimes } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ShadowGit, type GitIdentity } from './git'
import { ifUnreadable } from '../workspace'

/**
 * Runs `fn` with a git that stages into a scratch copy of the index and writes new objects to a scratch folder,
 * reading the store's objects through alternates: status, a diff against the working tree and a rollback preview
 * work on a project that cannot be written (a read-only folder or user) and leave its store untouched.
 */
export async function withOverlay<T>(
  gitDir: string,
  projectDir: string,
  opts: { identity?: GitIdentity; gitBinary?: string },
  fn: (git: ShadowGit) => Promise<T>,
): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'ralph-overlay-'))
  try {
    await copyIndex(join(gitDir, 'index'), join(dir, 'index'))
    await mkdir(join(dir, 'objects'))
    return await fn(new ShadowGit(gitDir, projectDir, opts.identity, opts.gitBinary, dir))
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

/**
 * Copies the shadow index keeping its mtime: git trusts an entry's stat data only when the file is older than
 * the index ("racily clean"), and a fresh mtime would hide a same-size edit made in the second of the last save.
 */
async function copyIndex(from: string, to: string): Promise<void> {
  const st = await stat(from).catch(ifUnreadable(null))
  if (!st) return
  await copyFile(from, to)
  await utimes(to, st.atime, st.mtime)
}
