import { walkProjectFiles } from './walk'

/** Project files (what snapshots would hold, roughly), sorted, capped so prompts stay bounded as projects grow. */
export async function listProjectFiles(
  projectDir: string,
  cap: number,
): Promise<{ files: string[]; total: number }> {
  const files: string[] = []
  let total = 0
  await walkProjectFiles(projectDir, (rel) => {
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
