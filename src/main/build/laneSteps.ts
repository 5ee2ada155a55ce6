// The lanes build's small decisions, apart from their effects (laneBuild.ts carries them out).
import { snapshotTags } from '../../shared/snapshotTags'
import type { UserEditsAnswer } from '../../shared/queueBuild'
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

/**
 * A lane folder's number for a task starting in scheduler lane `slot`: the slot's own number when its folder is free,
 * else the lowest free number up to 2 × `parallel`. A finished task keeps its folder (its verification on the merged
 * tree runs there) while its slot goes to the next task: so at most `parallel` tasks run, and at most twice as many
 * lane folders exist. Null: every number is taken (the task waits for a folder to be removed).
 */
export function laneFolderFor(slot: number, inUse: ReadonlySet<number>, parallel: number): number | null {
  if (!inUse.has(slot)) return slot
  for (let n = 1; n <= 2 * parallel; n++) if (!inUse.has(n)) return n
  return null
}

/**
 * The queue as the scheduler sees it when it picks the tasks to start: a task that finished in its lane and waits
 * in the merge train reads as done and not merged, so it is not started again, its dependants wait for its merge,
 * and it holds no slot (the slots bound the tasks that run).
 */
export function queueForStarts<T extends { id: string; status: string }>(
  tasks: readonly T[],
  finished: ReadonlySet<string>,
): T[] {
  return tasks.map((t) => (finished.has(t.id) ? { ...t, status: 'done' } : t))
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

/** At most five file names, then how many more: for one line of a question or a snapshot's message. */
function someFiles(paths: readonly string[], most = 5): string {
  const more = paths.length > most ? ` and ${paths.length - most} more` : ''
  return `${paths.slice(0, most).join(', ')}${more}`
}

/** What the build asks before an apply that would overwrite the user's edits (the CLI and the panel show it). */
export function userEditsQuestion(
  task: { id: string; name: string },
  number: number,
  lane: number,
  paths: readonly string[],
): string {
  const it = paths.length > 1 ? 'them' : 'it'
  return (
    `You changed ${someFiles(paths)} during the build, and “${task.name}” (${task.id}, task ${number} from lane ` +
    `${lane}) changes ${it} too. Keep your edits (the task's other changes are applied), take the task's ` +
    `version (yours stays in the safety snapshot ${snapshotTags.taskPre(number)}), or stop the build ` +
    `(nothing is written)?`
  )
}

/** What an answer to the user-edits question does (laneApply.ts carries it out). */
export interface UserEditsPlan {
  /** The apply's `userEdits` choice; null: no apply, the build pauses. */
  apply: 'keep-theirs' | 'take-task' | null
  /** The snapshot that will hold the user's versions (null: the folder keeps them, nothing is written). */
  snapshot: string | null
  /** Added to task-N-post's message, so the timeline says whose version the files hold. */
  postNote: string
  /** What happened, for the build's stream and log. */
  message: string
}

export function planUserEdits(
  answer: UserEditsAnswer,
  taskId: string,
  number: number,
  paths: readonly string[],
): UserEditsPlan {
  const files = someFiles(paths)
  switch (answer) {
    case 'keep-theirs': {
      const post = snapshotTags.taskPost(number)
      return {
        apply: 'keep-theirs',
        snapshot: post,
        postNote: `; kept your version of ${files}`,
        message:
          `Kept your version of ${files}: ${taskId}'s other changes are applied as task ${number} (${post} ` +
          `holds your version; the task's is in refs/lanes/${number}/merged).`,
      }
    }
    case 'take-task': {
      const pre = snapshotTags.taskPre(number)
      return {
        apply: 'take-task',
        snapshot: pre,
        postNote: `; took the task's version of ${files} (yours is in ${pre})`,
        message:
          `Took ${taskId}'s version of ${files}: your version is in the safety snapshot ${pre}, taken before ` +
          `the apply (Compare or Roll back to it to get it back).`,
      }
    }
    case 'stop':
      return { apply: null, snapshot: null, postNote: '', message: userEditsMessage(taskId, number, paths) }
  }
}

/** The user's answer so far, and the files it was given for. */
export interface UserEditsAnswered {
  answer: 'keep-theirs' | 'take-task'
  paths: readonly string[]
}

/** What an apply does next, given what a look at the folder found in its way. */
export type UserEditsStep =
  | {
      do: 'apply'
      userEdits: 'keep-theirs' | 'take-task'
      /** Paths the folder's version stays at besides the build's own files (the user's other edits). */
      keep: string[]
      /** The user's edits to files the task changes (for the post snapshot's note). */
      clash: string[]
    }
  | { do: 'ask'; paths: string[] }

/**
 * The apply's next step when the user's edits are in its way. Edits only to files the task does not change keep
 * the user's version without a question. A keep-theirs answer keeps every edit, also one made while the question
 * was open. A take-task answer takes the task's version only of the files it was given for: another edit to a file
 * the task changes asks again, and the user's edits to other files stay.
 */
export function userEditsStep(
  inTheWay: readonly string[],
  taskChanges: ReadonlySet<string>,
  answered: UserEditsAnswered | null,
): UserEditsStep {
  const clash = userEditClashes(inTheWay, taskChanges)
  if (clash.length === 0 || answered?.answer === 'keep-theirs')
    return { do: 'apply', userEdits: 'keep-theirs', keep: [], clash }
  const asked = new Set(answered?.paths ?? [])
  if (answered?.answer === 'take-task' && clash.every((p) => asked.has(p))) {
    const others = inTheWay.filter((p) => !clash.includes(p))
    return { do: 'apply', userEdits: 'take-task', keep: others, clash }
  }
  return { do: 'ask', paths: clash }
}

/**
 * Whether a lanes build makes a spare lane now (laneSpares.ts): more tasks wait for a lane than there are spares
 * (at most `parallel` of them), no lane is being made and no task is starting in its lane (the running tasks' lanes
 * and their first snapshots come first; spares use the CPU the lanes leave idle while they wait for the model), and
 * the lane folders stay within 2 × `parallel`.
 */
export function wantsSpare(s: {
  parallel: number
  /** Tasks that need a lane later: ready with no free slot, or waiting for a dependency's merge. */
  waiting: number
  spares: number
  /** Lanes being made now (running tasks' and a spare's), and tasks not yet past their first snapshot. */
  beingMade: number
  /** Lane folders that exist or are being made or removed. */
  folders: number
}): boolean {
  return (
    s.parallel > 1 &&
    s.beingMade === 0 &&
    s.spares < Math.min(s.waiting, s.parallel) &&
    s.folders < 2 * s.parallel
  )
}
