import { forbiddenReason } from '../workspace'
import { walkProjectFiles } from './walk'

/**
 * Project files (what snapshots would hold, roughly), sorted, capped so prompts stay bounded as projects grow.
 * What the file tools refuse (credential stores, .env files, app data folders) is not even named.
 */
export async function listProjectFiles(projectDir: string, cap: number): Promise<ProjectFileList> {
  const list = fileListVisitor(cap)
  await walkProjectFiles(projectDir, list.visit)
  return list.result()
}

export interface ProjectFileList {
  files: string[]
  total: number
}

/** listProjectFiles as a visitor of walkProjectFiles, for a walk that gathers more than the list. */
export function fileListVisitor(cap: number): { visit(rel: string): void; result(): ProjectFileList } {
  const files: string[] = []
  let total = 0
  // The walk skips app data folders itself.
  return {
    visit: (rel) => {
      if (forbiddenReason(rel) !== null) return
      total++
      if (files.length < cap) files.push(rel)
    },
    result: () => ({ files, total }),
  }
}

export function formatFileList(list: { files: string[]; total: number }): string {
  if (list.total === 0) return '(the project is empty)'
  const more = list.total - list.files.length
  return (
    list.files.join('\n') + (more > 0 ? `\n… and ${more} more files (use list_files or grep to explore)` : '')
  )
}
