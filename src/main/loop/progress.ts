import { createHash } from 'node:crypto'
import { opendir, stat } from 'node:fs/promises'
import { join, relative, sep } from 'node:path'
import { BUILTIN_EXCLUDED_DIRS } from '../snapshots'

const SKIP = new Set([...BUILTIN_EXCLUDED_DIRS, '.git'])
// The harness rewrites these every iteration; they say nothing about the model's progress.
const HARNESS_FILES = new Set([
  '.ralph/iteration.txt',
  '.ralph/status.txt',
  '.ralph/feedback.md',
  '.ralph/phase.txt',
])

/**
 * A cheap fingerprint of the project's files (path, size, mtime), for the "no progress" check after iterations
 * that ran shell commands, whose effects the tools cannot report. Skips what snapshots skip.
 */
export async function treeFingerprint(projectDir: string): Promise<string> {
  const hash = createHash('sha256')
  const stack = [projectDir]
  while (stack.length) {
    const dir = stack.pop()!
    let handle
    try {
      handle = await opendir(dir)
    } catch {
      continue
    }
    const entries: { name: string; isDir: boolean }[] = []
    for await (const entry of handle) entries.push({ name: entry.name, isDir: entry.isDirectory() })
    entries.sort((a, b) => (a.name < b.name ? -1 : 1))
    for (const entry of entries) {
      const full = join(dir, entry.name)
      const rel = relative(projectDir, full).split(sep).join('/')
      if (entry.isDir) {
        if (!SKIP.has(entry.name) && rel !== '.ralph/snapshots.git') stack.push(full)
        continue
      }
      if (HARNESS_FILES.has(rel) || rel.endsWith('.lock')) continue
      const st = await stat(full).catch(() => null)
      if (st) hash.update(`${rel}\0${st.size}\0${st.mtimeMs}\n`)
    }
  }
  return hash.digest('hex')
}
