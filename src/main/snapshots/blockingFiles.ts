// Files git opens by name as it walks the work tree: every visited folder's `.gitignore` (status, ls-files -o),
// `.gitattributes` (update-index, checkout, diff) and the root's `.gitmodules`, and the store's own info/ files.
// Git opens them with a plain blocking open(2): one that is a named pipe (`mkfifo .gitignore`, run by the model in
// the sandbox) makes git wait for a writer forever. Git cannot be told to skip them, so the shadow store's calls
// are watched instead (git.ts): a call still running after a moment has this scan run, and if it finds such a
// file the call is stopped with a message naming it. The scan reads folder entries only (their type comes with
// the name), never a file, so it cannot block itself; a fast call never pays for it.
import { readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { BUILTIN_EXCLUDED_DIRS } from './exclusions'
import { ifUnreadable } from '../workspace'

const GIT_READS = new Set(['.gitignore', '.gitattributes', '.gitmodules'])
const SKIP_DIRS = new Set<string>([...BUILTIN_EXCLUDED_DIRS, '.git'])
/** The scan gives up after this many folders (it then reports what it found so far). */
const MAX_DIRS = 200_000

export interface BlockingFile {
  /** Project-relative (or the store's `info/exclude`, prefixed with the store's path). */
  path: string
  kind: string
}

function kindOf(d: { isFIFO(): boolean; isSocket(): boolean; isCharacterDevice(): boolean }): string {
  if (d.isFIFO()) return 'a named pipe (FIFO)'
  if (d.isSocket()) return 'a socket'
  if (d.isCharacterDevice()) return 'a character device'
  return 'a block device'
}

/**
 * Non-regular files that git would open by name: `.gitignore`, `.gitattributes`, `.gitmodules` anywhere git walks
 * (not inside `.git` folders, nested repositories or the built-in excluded folders, which git never enters), and
 * the store's `info/exclude` and `info/attributes`. A symlink is not reported: git does not follow those.
 */
export async function findBlockingFiles(workTree: string, gitDir: string): Promise<BlockingFile[]> {
  const found: BlockingFile[] = []
  for (const name of ['exclude', 'attributes']) {
    const entries = await readdir(join(gitDir, 'info'), { withFileTypes: true }).catch(ifUnreadable([]))
    const d = entries.find((e) => e.name === name)
    if (d && !d.isFile() && !d.isDirectory() && !d.isSymbolicLink())
      found.push({ path: join(gitDir, 'info', name), kind: kindOf(d) })
  }
  const stack = ['']
  let dirs = 0
  while (stack.length > 0 && dirs++ < MAX_DIRS) {
    const rel = stack.pop()!
    const entries = await readdir(join(workTree, rel), { withFileTypes: true }).catch(ifUnreadable([]))
    // A nested repository: git reports it as one entry and reads nothing inside.
    if (rel !== '' && entries.some((e) => e.name === '.git')) continue
    for (const e of entries) {
      const child = rel === '' ? e.name : `${rel}/${e.name}`
      if (e.isDirectory()) {
        if (!SKIP_DIRS.has(e.name) && child !== '.ralph/snapshots.git') stack.push(child)
      } else if (GIT_READS.has(e.name) && !e.isFile() && !e.isSymbolicLink()) {
        found.push({ path: child, kind: kindOf(e) })
      }
    }
  }
  return found.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
}

/** The message a stopped call gives: what was found, why git cannot go on, what to do. */
export function blockingFilesMessage(command: string, files: readonly BlockingFile[]): string {
  const named = files.map((f) => `${f.path} (${f.kind})`).join(', ')
  const rm = files.map((f) => JSON.stringify(f.path)).join(' ')
  return (
    `The snapshot was stopped: git ${command} was waiting on ${named}. Git reads every folder's ` +
    `${files.length === 1 ? 'file of that name' : 'files of those names'} as text, and a named pipe, socket or ` +
    `device makes it wait forever. Nothing was saved. Remove ${files.length === 1 ? 'it' : 'them'} ` +
    `(rm ${rm}) or replace ${files.length === 1 ? 'it' : 'them'} with a regular file, then save again.`
  )
}
