import { dirname, join } from 'node:path'
import { forbiddenReason, holdsAppData } from '../workspace'
import { walkProjectFiles } from './walk'

/**
 * Project files (what snapshots would hold, roughly), sorted, capped so prompts stay bounded as projects grow.
 * What the file tools refuse (credential stores, .env files, app data folders) is not even named.
 */
export async function listProjectFiles(
  projectDir: string,
  cap: number,
): Promise<{ files: string[]; total: number }> {
  const files: string[] = []
  let total = 0
  const appData = new Map<string, boolean>()
  const inAppData = (rel: string): boolean => {
    const dir = dirname(rel)
    if (dir === '.') return false
    let held = appData.get(dir)
    if (held === undefined) {
      held = holdsAppData(join(projectDir, dir)) || inAppData(dir)
      appData.set(dir, held)
    }
    return held
  }
  await walkProjectFiles(projectDir, (rel) => {
    if (forbiddenReason(rel) !== null || inAppData(rel)) return
    total++
    if (files.length < cap) files.push(rel)
  })
  return { files, total }
}

export function formatFileList(list: { files: string[]; total: number }): string {
  if (list.total === 0) return '(the project is empty)'
  const more = list.total - list.files.length
  return (
    list.files.join('\n') + (more > 0 ? `\n… and ${more} more files (use list_files or grep to explore)` : '')
  )
}
