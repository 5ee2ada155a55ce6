import { opendir } from 'node:fs/promises'
import { join, relative, sep } from 'node:path'
import { BUILTIN_EXCLUDED_DIRS } from '../snapshots'

const SKIP = new Set([...BUILTIN_EXCLUDED_DIRS, '.git'])

/** Project files (what snapshots would hold, roughly), sorted, capped so prompts stay bounded as projects grow. */
export async function listProjectFiles(
  projectDir: string,
  cap: number,
): Promise<{ files: string[]; total: number }> {
  const files: string[] = []
  let total = 0
  const stack = [projectDir]
  while (stack.length) {
    const dir = stack.pop()!
    let handle
    try {
      handle = await opendir(dir)
    } catch {
      continue
    }
    for await (const entry of handle) {
      const full = join(dir, entry.name)
      if (entry.isDirectory()) {
        const rel = relative(projectDir, full).split(sep).join('/')
        if (!SKIP.has(entry.name) && rel !== '.ralph/snapshots.git') stack.push(full)
      } else {
        total++
        if (files.length < cap * 4) files.push(relative(projectDir, full).split(sep).join('/'))
      }
    }
  }
  files.sort()
  return { files: files.slice(0, cap), total }
}

export function formatFileList(list: { files: string[]; total: number }): string {
  if (list.total === 0) return '(the project is empty)'
  const more = list.total - list.files.length
  return (
    list.files.join('\n') + (more > 0 ? `\n… and ${more} more files (use list_files or grep to explore)` : '')
  )
}
