import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { BUILTIN_EXCLUDED_DIRS } from '../snapshots'
import { isUnreadable, listsAppData } from '../workspace'

const SKIP = new Set([...BUILTIN_EXCLUDED_DIRS, '.git'])

/** The longest stretch the walk blocks the event loop before it lets other work (IPC, the web host) run. */
const SLICE_MS = 8
/** Entries visited between clock reads inside one folder (a 10,000-file folder would otherwise be one slice). */
const CHECK_EVERY = 256

/**
 * Visits the project's regular files and symlinks (project-relative, forward slashes, sorted per folder),
 * skipping what snapshots skip, app data folders included (a folder below the root that holds Ralph's database:
 * seen in its own listing, no look per folder). Each folder is read synchronously (the async fs pays a thread-pool round trip per folder and per file,
 * 15–30× slower), but the walk yields every few milliseconds: the Electron main process runs this core, and a
 * 10,000-file walk in one piece froze the app for a few hundred milliseconds.
 */
export async function walkProjectFiles(
  projectDir: string,
  visit: (rel: string, full: string) => boolean | void,
): Promise<void> {
  let sliceStart = performance.now()
  let sinceCheck = 0
  const maybeYield = async () => {
    if (++sinceCheck < CHECK_EVERY) return
    sinceCheck = 0
    if (performance.now() - sliceStart < SLICE_MS) return
    await new Promise<void>((resolve) => setImmediate(resolve))
    sliceStart = performance.now()
  }
  const stack: [string, string][] = [[projectDir, '']]
  while (stack.length) {
    const [dir, prefix] = stack.pop()!
    let entries
    try {
      entries = readdirSync(dir, { withFileTypes: true })
    } catch (err) {
      // A folder that vanished or that we may not read holds nothing to list.
      if (isUnreadable(err)) continue
      throw err
    }
    if (prefix !== '' && listsAppData(entries)) continue
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    const subdirs: [string, string][] = []
    for (const entry of entries) {
      const rel = prefix + entry.name
      if (entry.isDirectory()) {
        if (!SKIP.has(entry.name) && rel !== '.ralph/snapshots.git')
          subdirs.push([join(dir, entry.name), `${rel}/`])
      } else if (!entry.isFile() && !entry.isSymbolicLink()) {
        // A named pipe, socket or device is not project content (snapshots skip it too), and a visitor that
        // opened it could wait forever: it is not visited.
      } else if (visit(rel, join(dir, entry.name)) === false) {
        return
      }
      await maybeYield()
    }
    for (let i = subdirs.length - 1; i >= 0; i--) stack.push(subdirs[i]!)
  }
}
