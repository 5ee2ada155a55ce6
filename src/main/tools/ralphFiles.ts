// Which .ralph/ files the model may write, and when a write means "task complete" (DESIGN.md §6, §7).
import { lstat, mkdir, readdir, readFile, readlink, rm, symlink } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { writeFileAtomic, ifMissingOrDenied } from '../workspace'

const RALPH_DIR = '.ralph'

export const STATUS_FILE = '.ralph/status.txt'
export const SUMMARY_FILE = '.ralph/summary.md'
export const PLAN_FILE = '.ralph/plan.tsx'

/** The only `.ralph/` files the model writes; the sandbox keeps the rest of `.ralph/` read-only. */
export const MODEL_WRITABLE_FILES: readonly string[] = [PLAN_FILE, SUMMARY_FILE, STATUS_FILE]

/**
 * Loop state and settings owned by the harness. A model that could rewrite these could raise its own
 * iteration budget, switch the phase, drop the project's test command or rewrite its task (DESIGN.md §14).
 * The model writes plan.tsx, summary.md and status.txt (through mark_complete or write_file).
 */
export const HARNESS_OWNED_FILES: readonly string[] = [
  '.ralph/config.json',
  '.ralph/origin.md',
  '.ralph/task.md',
  '.ralph/feedback.md',
  '.ralph/phase.txt',
  '.ralph/iteration.txt',
  '.ralph/task-counter.txt',
  '.ralph/task-history.md',
  '.ralph/.gitignore',
  // The work queue changes only through the queue tool and the CLI's use-cases: a model that edited it by hand
  // could mark its own task done or drop it (DESIGN.md §16).
  '.ralph/plan.jsonl',
]

const RALPH_PREFIX = '.ralph/'

/** Is `rel` (project-relative, posix) `.ralph` or inside it? Case-insensitive: `.RALPH/` is the same folder on macOS. */
export function isUnderRalph(rel: string): boolean {
  const lower = rel.toLowerCase()
  return lower === '.ralph' || lower.startsWith(RALPH_PREFIX)
}

/**
 * Why the model may not write `rel`, or null when it may. `.ralph/` is allowlist-writable: the model writes only
 * MODEL_WRITABLE_FILES there. Everything else in it is the harness's (loop state, progress checkpoints, the queue,
 * the notifications the Queue panel shows the user), and a new file there could pass for one (DESIGN.md §14).
 */
export function writeRefusal(rel: string): string | null {
  if (!isUnderRalph(rel) || MODEL_WRITABLE_FILES.includes(rel)) return null
  const allowed = `The model writes only ${MODEL_WRITABLE_FILES.join(', ')} in .ralph/.`
  if (HARNESS_OWNED_FILES.includes(rel) || rel === '.ralph/progress.md') {
    const hint =
      rel === '.ralph/feedback.md' || rel === '.ralph/task.md'
        ? 'Read it with read_file; the harness writes it.'
        : 'It is loop state or settings that only the harness changes.'
    return `Refused: ${rel} is owned by the harness. ${hint} ${allowed} To finish the task call mark_complete.`
  }
  return (
    `Refused: ${rel} is inside .ralph/, which belongs to the harness. ${allowed} ` +
    'Put your own files elsewhere in the project; to finish the task call mark_complete.'
  )
}

/** Writing "complete" to .ralph/status.txt counts as completion, like mark_complete. */
export function marksComplete(rel: string, content: string): boolean {
  return rel === STATUS_FILE && content.trim().toLowerCase() === 'complete'
}

/** One `.ralph/` entry as it was: a file's bytes and mode, a folder, or a symbolic link's target. */
type Entry = { kind: 'file'; data: Buffer; mode: number } | { kind: 'dir' } | { kind: 'link'; target: string }

/** `.ralph/` entries by project-relative path (null = absent), taken before something unconfined runs. */
export type HarnessFileState = Map<string, Entry | null>

/** Not captured: the model's own files, the snapshot store (the engine guards it), and transient locks/temp files. */
function skipped(rel: string, writable: readonly string[]): boolean {
  if (writable.includes(rel)) return true
  if (rel === '.ralph/snapshots.git' || rel.startsWith('.ralph/snapshots.git/')) return true
  return /^\.ralph\/[^/]*\.(lock|tmp)$/.test(rel) || /\/\.[^/]*\.tmp$/.test(rel)
}

async function entryAt(file: string): Promise<Entry | null> {
  const st = await lstat(file).catch(ifMissingOrDenied(null))
  if (!st) return null
  if (st.isSymbolicLink()) return { kind: 'link', target: await readlink(file) }
  if (st.isDirectory()) return { kind: 'dir' }
  if (!st.isFile()) return null // a FIFO or device is never harness state; a new one is removed below
  return { kind: 'file', data: await readFile(file), mode: st.mode & 0o7777 }
}

/** Every path under `.ralph/` (folders before their contents), not following symbolic links. */
async function listTree(root: string, writable: readonly string[]): Promise<string[]> {
  const out: string[] = []
  const walkDir = async (rel: string): Promise<void> => {
    const entries = await readdir(join(root, rel), { withFileTypes: true }).catch(ifMissingOrDenied([]))
    for (const e of entries) {
      const child = `${rel}/${e.name}`
      if (skipped(child, writable)) continue
      out.push(child)
      if (e.isDirectory()) await walkDir(child)
    }
  }
  const top = await lstat(join(root, RALPH_DIR)).catch(ifMissingOrDenied(null))
  if (top?.isDirectory()) await walkDir(RALPH_DIR)
  return out
}

const sameEntry = (a: Entry | null, b: Entry | null): boolean => {
  if (a === null || b === null) return a === b
  if (a.kind === 'file' && b.kind === 'file') return a.data.equals(b.data)
  if (a.kind === 'link' && b.kind === 'link') return a.target === b.target
  return a.kind === b.kind
}

/**
 * The whole `.ralph/` tree except what the model may write (MODEL_WRITABLE_FILES, or `writable`), the snapshot
 * store and lock/temp files. Pass `rels` to capture only those paths (absent ones recorded as absent).
 */
export async function captureHarnessFiles(
  root: string,
  rels?: readonly string[],
  writable: readonly string[] = MODEL_WRITABLE_FILES,
): Promise<HarnessFileState> {
  const state: HarnessFileState = new Map()
  const paths = rels ?? (await listTree(root, writable))
  for (const rel of paths) state.set(rel, await entryAt(join(root, rel)))
  if (!rels) wholeTree.set(state, writable)
  return state
}

/** Whole-tree captures and what they left out: for them, entries that appeared since are removed too. */
const wholeTree = new WeakMap<HarnessFileState, readonly string[]>()

async function putBack(file: string, old: Entry): Promise<void> {
  const now = await lstat(file).catch(ifMissingOrDenied(null))
  if (old.kind === 'dir') {
    if (now && !now.isDirectory()) await rm(file, { force: true })
    await mkdir(file, { recursive: true })
    return
  }
  if (now?.isDirectory() || now?.isSymbolicLink()) await rm(file, { recursive: true, force: true })
  if (old.kind === 'link') {
    await rm(file, { force: true })
    await mkdir(dirname(file), { recursive: true })
    await symlink(old.target, file)
  } else await writeFileAtomic(file, old.data, old.mode)
}

/**
 * Puts back the `.ralph/` state a shell command changed, created or deleted, so the loop's settings, checkpoints
 * and notifications stay the harness's (DESIGN.md §14): changed and deleted entries are restored, new ones
 * removed. Returns the paths put back or removed.
 */
export async function restoreHarnessFiles(root: string, before: HarnessFileState): Promise<string[]> {
  const restored: string[] = []
  const writable = wholeTree.get(before)
  const paths = new Set(before.keys())
  if (writable) for (const rel of await listTree(root, writable)) paths.add(rel)
  // Parents before children when putting back; a removed folder takes its new contents with it.
  for (const rel of [...paths].sort()) {
    const file = join(root, rel)
    const old = before.get(rel) ?? null
    // A new entry is removed unread (it may be huge); a captured one is compared with what is there now (an
    // entry made unreadable counts as changed, and is put back).
    if (
      old === null
        ? !(await lstat(file).catch(ifMissingOrDenied(null)))
        : sameEntry(old, await entryAt(file).catch(ifMissingOrDenied(null)))
    )
      continue
    try {
      if (old === null) await rm(file, { recursive: true, force: true })
      else await putBack(file, old)
      restored.push(rel)
    } catch (err) {
      // The loop re-reads these files and reports anything odd; the tool result names what could not be fixed.
      restored.push(`${rel} (could not be put back: ${(err as Error).message})`)
    }
  }
  return restored
}

export async function readStatus(root: string): Promise<string | null> {
  return readFile(join(root, STATUS_FILE), 'utf8').catch(ifMissingOrDenied(null))
}
