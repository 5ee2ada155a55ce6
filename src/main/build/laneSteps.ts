// The lanes build's small decisions, apart from their effects (laneBuild.ts carries them out).
import type { BuildAction } from './decide'

/** The `.ralph/` files the build itself writes in the user's folder between applies: the apply keeps the folder's. */
export const BUILD_WRITES = [
  '.ralph/plan.jsonl',
  '.ralph/task-counter.txt',
  '.ralph/task-history.md',
] as const

/**
 * What an apply keeps of the user's folder (applyCommitAsTask's `keepFolder`): the build's own files and the
 * notifications it wrote (`.ralph/notifications/…`, relative paths). None of them is a user's edit, and none is
 * in a lane's result.
 */
export function keptInFolder(notifications: readonly string[]): string[] {
  return [...new Set([...BUILD_WRITES, ...notifications.map((p) => p.replace(/^\.\//, ''))])]
}

/**
 * Whether a decision's actions wait until the task is merged and applied: an accepted task (PASS) and one a person
 * decides (marked done: NEEDS_HUMAN, interactive approval) count only with their work in the user's folder. The
 * rest (reject and retry, escalate, stop) are carried out at once: the lane's work never reached the folder.
 */
export function waitsForMerge(actions: readonly BuildAction[]): boolean {
  return actions.some((a) => a.type === 'accept' || a.type === 'mark-done')
}

/** The task history line of a merged task, as the serial loop writes it when the next task begins. */
export function historyLine(task: number, summary: string): string {
  const lines = summary
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.length > 0)
  const prose = lines.find((l) => !l.startsWith('#')) ?? ''
  const what = prose.length > 160 ? `${prose.slice(0, 159)}…` : prose
  return `- Task ${task} (complete): ${what || 'merged from its lane'}`
}

/**
 * Of the paths the user changed during the build that an apply found in its way, those the merged task itself
 * changes: only these pause the build. The rest (a file the user saved that the task never touched) keep the user's
 * version. The build's own files never count.
 */
export function userEditClashes(inTheWay: readonly string[], taskChanges: ReadonlySet<string>): string[] {
  const own = new Set<string>(BUILD_WRITES)
  return inTheWay.filter((p) => taskChanges.has(p) && !own.has(p))
}

/** The message of the user-edits pause: which files, and what the user can do. */
export function userEditsMessage(taskId: string, task: number, paths: readonly string[]): string {
  const shown = paths.slice(0, 10).join(', ')
  const more = paths.length > 10 ? ` and ${paths.length - 10} more` : ''
  return (
    `The build paused before applying ${taskId} (task ${task}): you changed ${shown}${more} since the build ` +
    `started, and the task's merged work changes ${paths.length > 1 ? 'them' : 'it'} too. Nothing was ` +
    `overwritten. Keep or save your edits, then run \`ralph build\` again: the task is built again on top of them.`
  )
}
