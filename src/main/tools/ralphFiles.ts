// Which .ralph/ files the model may write, and when a write means "task complete" (DESIGN.md §6, §7).
import { readFile, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { writeFileAtomic } from '../workspace/atomicWrite'

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

export function writeRefusal(rel: string): string | null {
  if (!HARNESS_OWNED_FILES.includes(rel)) return null
  const hint =
    rel === '.ralph/feedback.md' || rel === '.ralph/task.md'
      ? 'Read it with read_file; the harness writes it.'
      : 'It is loop state or settings that only the harness changes.'
  return `Refused: ${rel} is owned by the harness. ${hint} To finish the task call mark_complete.`
}

/** Writing "complete" to .ralph/status.txt counts as completion, like mark_complete. */
export function marksComplete(rel: string, content: string): boolean {
  return rel === STATUS_FILE && content.trim().toLowerCase() === 'complete'
}

export type HarnessFileState = Map<string, Buffer | null>

/** Contents of the harness-owned files (null = absent), taken before something unconfined runs. */
export async function captureHarnessFiles(
  root: string,
  rels: readonly string[] = HARNESS_OWNED_FILES,
): Promise<HarnessFileState> {
  const state: HarnessFileState = new Map()
  await Promise.all(
    rels.map(async (rel) => state.set(rel, await readFile(join(root, rel)).catch(() => null))),
  )
  return state
}

/**
 * Puts back any harness-owned file a shell command changed, created or deleted, so the loop's settings and
 * state stay the harness's (DESIGN.md §14). Returns the paths restored.
 */
export async function restoreHarnessFiles(root: string, before: HarnessFileState): Promise<string[]> {
  const restored: string[] = []
  for (const [rel, old] of before) {
    const file = join(root, rel)
    const now = await readFile(file).catch(() => null)
    if (old === null ? now === null : now?.equals(old)) continue
    try {
      if (old === null) await rm(file, { force: true })
      else await writeFileAtomic(file, old)
      restored.push(rel)
    } catch {
      // Best effort: the loop re-reads these files and reports anything odd.
    }
  }
  return restored
}

export async function readStatus(root: string): Promise<string | null> {
  return readFile(join(root, STATUS_FILE), 'utf8').catch(() => null)
}
