import { createHash } from 'node:crypto'
import {
  chmodSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readlinkSync,
  rmdirSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs'
import { dirname, join } from 'node:path'
import { AppError } from '../../shared/errors'
import { readBlobs } from './blobStream'
import type { ShadowGit } from './git'
import { restoredMode, type ModeManifest } from './modes'
import { ifUnreadable, isUnwritable } from '../workspace'

/** One path of `git diff-tree --raw`: what it was in the current state and what the target holds. */
export interface TreeChange {
  status: 'A' | 'M' | 'D' | 'T'
  path: string
  oldMode: string
  newMode: string
  oldSha: string
  newSha: string
}

const NO_FILE = '000000'
const SYMLINK = '120000'
const EXECUTABLE = '100755'

/** Parses `diff-tree -r -z --raw --no-renames` output (header field, then path field). */
export function parseRawDiff(fields: string[]): TreeChange[] {
  const changes: TreeChange[] = []
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const [oldMode, newMode, oldSha, newSha, status] = fields[i]!.slice(1).split(' ')
    const s = status?.[0]
    changes.push({
      status: s === 'A' || s === 'D' || s === 'T' ? s : 'M',
      path: fields[i + 1]!,
      oldMode: oldMode!,
      newMode: newMode!,
      oldSha: oldSha!,
      newSha: newSha!,
    })
  }
  return changes
}

/**
 * Paths whose bytes on disk are no longer what the current snapshot recorded: a file edited after the safety
 * snapshot hashed it. A rollback must not overwrite those, because undo could not bring the edit back.
 */
export function changedOnDisk(projectDir: string, changes: TreeChange[]): string[] {
  const changed: string[] = []
  for (const c of changes) {
    if (c.oldMode === NO_FILE) continue
    if (blobShaOnDisk(join(projectDir, c.path), c.oldMode) !== c.oldSha) changed.push(c.path)
  }
  return changed
}

function blobShaOnDisk(file: string, mode: string): string | null {
  try {
    const st = lstatSync(file)
    if (mode === SYMLINK)
      return st.isSymbolicLink() ? blobSha(readlinkSync(file, { encoding: 'buffer' })) : null
    return st.isFile() ? blobSha(readFileSync(file)) : null
  } catch (err) {
    return ifUnreadable(null)(err)
  }
}

/** Git's object name for a blob (SHA-1 of "blob <size>\0" + bytes); the store is SHA-1. */
export function blobSha(data: Buffer): string {
  return createHash('sha1').update(`blob ${data.length}\0`).update(data).digest('hex')
}

/** Permission bits of the regular file at `file`, or null (missing, a symlink, a folder). */
function currentPerm(file: string): number | null {
  try {
    const st = lstatSync(file, { throwIfNoEntry: false })
    return st?.isFile() ? st.mode & 0o7777 : null
  } catch (err) {
    return ifUnreadable(null)(err) // ENOTDIR: a file stands where a folder was
  }
}

export interface ApplyResult {
  /** Target paths not written because something is there (it appeared meanwhile, or a folder kept files). */
  blocked: string[]
}

/**
 * Moves the working tree from the current snapshot to the target for exactly the given paths: deletions first
 * (pruning folders they empty, as git does), then each target file written from the store. Nothing else on
 * disk is touched, so unchanged files keep their mtime. Files are created exclusively: whatever appeared at a
 * target path since the plan was made is left alone and reported, never overwritten.
 */
export async function applyChanges(
  git: ShadowGit,
  projectDir: string,
  writes: TreeChange[],
  deletes: TreeChange[],
  targetModes: ModeManifest = {},
): Promise<ApplyResult> {
  const io = (what: string, path: string, err: unknown): AppError =>
    new AppError(
      'io',
      `The rollback could not ${what} "${path}": ${(err as Error).message}. ` +
        'Files changed so far can be brought back with Undo in the Timeline (or "ralph snapshot undo").',
    )

  const emptied = new Set<string>()
  for (const c of deletes) {
    try {
      unlinkSync(join(projectDir, c.path))
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw io('delete', c.path, err)
    }
    for (let d = dirname(c.path); d !== '.'; d = dirname(d)) emptied.add(d)
  }
  // Deepest first: a folder's path is longer than its parent's.
  for (const dir of [...emptied].sort((a, b) => b.length - a.length)) {
    try {
      rmdirSync(join(projectDir, dir))
    } catch (err) {
      // not empty (ignored or skipped files live there) or already gone: keep it
      if (!isUnwritable(err)) throw err
    }
  }

  const blocked: string[] = []
  const made = new Set<string>()
  let i = 0
  for await (const blob of readBlobs(
    git,
    writes.map((c) => c.newSha),
  )) {
    const c = writes[i++]!
    const file = join(projectDir, c.path)
    const parent = dirname(c.path)
    const current = c.status === 'A' ? null : currentPerm(file)
    try {
      if (parent !== '.' && !made.has(parent)) {
        mkdirSync(join(projectDir, parent), { recursive: true })
        made.add(parent)
      }
      if (c.status !== 'A') unlinkSync(file)
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw io('replace', c.path, err)
    }
    try {
      if (c.newMode === SYMLINK) symlinkSync(blob.data, file)
      else {
        // Never wider than the file was (or was recorded as): see modes.ts. Created with that mode, so a 0600
        // file's content is never readable by others, not even for a moment; chmod then sets what umask masked.
        const perm = restoredMode(targetModes[c.path], current, c.newMode === EXECUTABLE)
        const mode = perm ?? (c.newMode === EXECUTABLE ? 0o777 : 0o666)
        writeFileSync(file, blob.data, { flag: 'wx', mode })
        if (perm !== null) chmodSync(file, perm)
      }
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code
      if (code === 'EEXIST' || code === 'EISDIR') blocked.push(c.path)
      else throw io('write', c.path, err)
    }
  }
  return { blocked }
}
