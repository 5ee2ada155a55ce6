// The one write to the user's repository besides "Commit to my git" (DESIGN.md §5): a line in .git/info/exclude,
// only when the user asks for it. Never .gitignore (a file of theirs that they commit and share).
import { existsSync, readFileSync } from 'node:fs'
import { isAbsolute, join } from 'node:path'
import { AppError } from '../../shared/errors'
import { writeFileAtomic } from '../workspace'
import { gitError, openUserRepo } from './repo'

/**
 * The exclude pattern for the project's `.ralph/`, anchored at the repository's top (a project in a sub-folder
 * gets its own folder only, never every `.ralph/` of the repository). Glob characters in the path are escaped.
 */
export function ralphExcludeLine(prefix: string): string {
  return `/${prefix.replace(/[\\*?[]/g, '\\$&')}.ralph/`
}

/** The exclude file's text with `line` added under a comment saying who added it; null when it is there already. */
export function withExcludeLine(current: string, line: string): string | null {
  if (current.split(/\r?\n/).some((l) => l.trim() === line)) return null
  const sep = current === '' || current.endsWith('\n') ? '' : '\n'
  return `${current}${sep}# Ralph Studio's own files: added when you chose "Hide .ralph/ from git status".\n${line}\n`
}

export interface ExcludeResult {
  /** The exclude file, absolute (a linked worktree shares its main repository's). */
  file: string
  line: string
  /** False when the line was there already (nothing written). */
  added: boolean
}

/**
 * Adds the project's `.ralph/` to the repository's `info/exclude` (a file only this copy of the repository reads:
 * nothing is committed, shared or pushed), so `git status` and `git add .` leave Ralph's own files out. Idempotent.
 */
export async function excludeRalph(projectDir: string): Promise<ExcludeResult> {
  const repo = await openUserRepo(projectDir)
  if (!repo) {
    throw new AppError(
      'not-found',
      'This project is not in a git repository, so git lists nothing of Ralph’s. Nothing was changed.',
    )
  }
  let file: string
  try {
    // Where git itself reads it (the common directory in a linked worktree), not a guess at `.git/info/exclude`.
    const out = (await repo.git.raw(['rev-parse', '--git-path', 'info/exclude'])).trim()
    file = isAbsolute(out) ? out : join(repo.top, out)
  } catch (err) {
    throw gitError(err, 'find your repository’s exclude file')
  }
  const line = ralphExcludeLine(repo.prefix)
  const next = withExcludeLine(existsSync(file) ? readFileSync(file, 'utf8') : '', line)
  if (next === null) return { file, line, added: false }
  await writeFileAtomic(file, next)
  return { file, line, added: true }
}
