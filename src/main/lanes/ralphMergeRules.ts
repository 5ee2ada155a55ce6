// Which side wins for each `.ralph/` file when a lane's result merges onto the integration state (issue #38, seam
// 3): every task writes its state files, so a plain 3-way merge of them would conflict on every merge. Pure
// decisions and text combinations only; the git that reads and writes the files is in mergeLane.ts.
import { planWithoutStaleMarkers } from '../plan'
import { PLAN_FILE as QUEUE_FILE } from '../queue'
import { RALPH_DIR, ralphFiles, type RalphFile } from '../workspace'

export type RalphRule =
  /** Task state: the lane's task is the newest in the timeline, so its state is the state. */
  | 'theirs'
  /** The queue and the config: the build owns the queue, the model never writes the config. */
  | 'ours'
  /** The task history: append-only lines, the integration's first, then the lane's new ones. */
  | 'union'
  /** The task counter: task numbers are never reused, so the larger one. */
  | 'max'
  /** plan.tsx: other tasks' markers removed from all three sides, then a 3-way merge of the texts. */
  | 'plan'

const at = (file: RalphFile): string => `${RALPH_DIR}/${ralphFiles[file]}`

/** plan.tsx's path in a tree: the one ruled file whose merge can conflict. */
export const PLAN_PATH = at('plan')

const TASK_STATE: readonly RalphFile[] = [
  'task',
  'status',
  'summary',
  'feedback',
  'progress',
  'iteration',
  'phase',
]

const RULES: ReadonlyMap<string, RalphRule> = new Map<string, RalphRule>([
  ...TASK_STATE.map((f) => [at(f), 'theirs'] as const),
  [at('taskHistory'), 'union'],
  [at('taskCounter'), 'max'],
  [`${RALPH_DIR}/${QUEUE_FILE}`, 'ours'],
  [at('config'), 'ours'],
  [PLAN_PATH, 'plan'],
])

/** The paths a rule resolves, in a stable order (the git side reads their entries on all three sides). */
export const RULED_PATHS: readonly string[] = [...RULES.keys()].sort()

/**
 * The rule for a path of the merged tree, or null when it merges 3-way like a project file (project files,
 * attachments, notifications and any other `.ralph/` file).
 */
export function ralphRuleFor(path: string): RalphRule | null {
  return RULES.get(path) ?? null
}

/** A tree entry: its mode and object id. */
export interface Entry {
  mode: string
  oid: string
}

export interface Sides<T> {
  base: T | null
  ours: T | null
  theirs: T | null
}

const sameEntry = (a: Entry | null, b: Entry | null): boolean =>
  a === null || b === null ? a === b : a.mode === b.mode && a.oid === b.oid

/**
 * What an 'ours' rule tells the caller when the lane changed the file anyway: the lane's change is dropped, and
 * the task's feedback or the build's log should say so. Null when the lane left it as it was.
 */
export function droppedChangeNote(path: string, sides: Sides<Entry>): string | null {
  if (ralphRuleFor(path) !== 'ours' || sameEntry(sides.base, sides.theirs)) return null
  const why =
    path === at('config') ? 'the model never writes the project configuration' : 'the build owns the queue'
  return `The task changed ${path}; the integration's copy was kept (${why}), so that change was dropped.`
}

const linesOf = (text: string): string[] => {
  const lines = text.split('\n')
  if (lines[lines.length - 1] === '') lines.pop()
  return lines
}

/**
 * The history's union: every line of ours in order, then theirs' lines that ours does not already have (counted,
 * so a line ours has once and theirs twice is added once). Ends with a newline unless empty.
 */
export function unionLines(ours: string, theirs: string): string {
  const have = new Map<string, number>()
  for (const l of linesOf(ours)) have.set(l, (have.get(l) ?? 0) + 1)
  const added: string[] = []
  for (const l of linesOf(theirs)) {
    const n = have.get(l) ?? 0
    if (n > 0) have.set(l, n - 1)
    else added.push(l)
  }
  const all = [...linesOf(ours), ...added]
  return all.length === 0 ? '' : `${all.join('\n')}\n`
}

const counterOf = (text: string | null): number | null => {
  if (text === null || !/^\s*\d+\s*$/.test(text)) return null
  const n = Number(text.trim())
  return Number.isSafeInteger(n) ? n : null
}

/**
 * The larger task counter as the file's text, or null when neither side holds a number (then ours' file is
 * kept as it is: nextTaskNumber reports a broken counter to the user, not the merge).
 */
export function largerCounter(ours: string | null, theirs: string | null): string | null {
  const [a, b] = [counterOf(ours), counterOf(theirs)]
  if (a === null && b === null) return null
  return `${Math.max(a ?? 0, b ?? 0)}\n`
}

/** The three plan.tsx texts with every marker of a task other than `task` removed (the merge's input). */
export function planSidesFor(texts: Sides<string>, task: number): Sides<string> {
  const strip = (t: string | null): string | null => (t === null ? null : planWithoutStaleMarkers(t, task))
  return { base: strip(texts.base), ours: strip(texts.ours), theirs: strip(texts.theirs) }
}

/** What to do with one ruled path of the merged tree. */
export type RalphAction =
  /** Put this side's entry as it is (null: the path is absent from the result). */
  | { path: string; do: 'entry'; entry: Entry | null }
  /** Combine the texts of ours and theirs (`unionLines`, `largerCounter`). */
  | { path: string; do: 'union' | 'max' }
  /** Strip other tasks' markers from base, ours and theirs, then merge the three texts. */
  | { path: string; do: 'plan' }

/**
 * The actions for the ruled paths, from their entries on the three sides (a path on no side is left out), and the
 * notes about lane changes the rules dropped. Texts are combined only where both sides hold a differing file.
 */
export function ralphActions(entries: ReadonlyMap<string, Sides<Entry>>): {
  actions: RalphAction[]
  notes: string[]
} {
  const actions: RalphAction[] = []
  const notes: string[] = []
  for (const [path, sides] of entries) {
    const rule = ralphRuleFor(path)
    if (rule === null) throw new RangeError(`${path} has no .ralph/ merge rule`)
    if (sides.base === null && sides.ours === null && sides.theirs === null) continue
    const { ours, theirs } = sides
    if (rule === 'ours' || rule === 'theirs') {
      actions.push({ path, do: 'entry', entry: rule === 'ours' ? ours : theirs })
      const note = droppedChangeNote(path, sides)
      if (note !== null) notes.push(note)
    } else if (rule === 'plan') actions.push({ path, do: 'plan' })
    else if (ours === null || theirs === null || sameEntry(ours, theirs))
      actions.push({ path, do: 'entry', entry: ours ?? theirs })
    else actions.push({ path, do: rule })
  }
  return { actions, notes }
}
