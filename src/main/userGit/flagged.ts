// Verification's checks on what "Commit to my git" would add (DESIGN.md §16): a path verification blocks (.env,
// keys …) and secrets in the added lines. The commit refuses a flagged file unless the user lets that file in.
import { GitError } from 'simple-git'
import { lstat, open } from 'node:fs/promises'
import { join } from 'node:path'
import type { FlaggedFile } from '../../shared/api/userGit'
import { blockedPathRule, scanAddedLines } from '../secrets'
import type { UserRepo } from './repo'
import type { TaskChange } from './taskChanges'
import { ifUnreadable } from '../workspace'

/** Past this size a file is scanned in its first part only (a secret is a line, not a megabyte). */
const SCAN_LIMIT = 2 * 1024 * 1024

/**
 * Each candidate that fails a check, with why. Added lines are those of the file on disk (what the commit takes)
 * that HEAD's version does not have; a deleted file adds nothing. `allow` holds the paths the user let in.
 */
export async function flagFiles(
  repo: UserRepo,
  candidates: readonly TaskChange[],
  head: string | null,
  allow: ReadonlySet<string>,
): Promise<FlaggedFile[]> {
  const flagged: FlaggedFile[] = []
  const added: { path: string; added: { line: number; text: string }[] }[] = []
  for (const c of candidates) {
    if (c.status === 'deleted') continue
    const rule = blockedPathRule(c.path)
    if (rule) {
      flagged.push({
        path: c.path,
        reason: 'blocked-path',
        detail: `matches ${rule}, which verification blocks: keys and environment files stay out of git`,
        allowed: allow.has(c.path),
      })
    }
    const now = await readText(join(repo.top, `${repo.prefix}${c.path}`))
    if (now === null) continue
    const before = c.status === 'added' || !head ? '' : await headText(repo, c.path, head)
    const old = new Set(before.split('\n'))
    const lines = now.split('\n')
    added.push({
      path: c.path,
      added: lines.flatMap((text, i) => (old.has(text) ? [] : [{ line: i + 1, text }])),
    })
  }
  for (const f of await scanAddedLines(added)) {
    // The finding carries a masked preview only: never the secret itself.
    flagged.push({
      path: f.path,
      reason: 'secret',
      detail: `line ${f.line}: ${f.kind} (${f.preview})`,
      allowed: allow.has(f.path),
    })
  }
  return flagged
}

/** A regular file's text (its first SCAN_LIMIT bytes); null for a binary, a symlink or a missing file. */
async function readText(path: string): Promise<string | null> {
  const st = await lstat(path).catch(ifUnreadable(null))
  if (!st?.isFile()) return null
  const handle = await open(path, 'r')
  try {
    const size = Math.min(st.size, SCAN_LIMIT)
    const buf = Buffer.alloc(size)
    const { bytesRead } = await handle.read(buf, 0, size, 0)
    const bytes = buf.subarray(0, bytesRead)
    if (bytes.subarray(0, 8000).includes(0)) return null
    return bytes.toString('utf8')
  } finally {
    await handle.close()
  }
}

/** HEAD's version of a file as stored (no filter or textconv runs: cat-file of the blob); '' when it has none. */
async function headText(repo: UserRepo, path: string, head: string): Promise<string> {
  try {
    return await repo.git.raw(['cat-file', 'blob', `${head}:${repo.prefix}${path}`])
  } catch (err) {
    // Not in HEAD (new to the user's repository although the task modified it): every line is added.
    if (err instanceof GitError) return ''
    throw err
  }
}
