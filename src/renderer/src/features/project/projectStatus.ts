import type { TaskCardStatus } from '../../../../shared/api/chat'
import type { ProjectState } from '../../../../shared/project'
import type { Tone } from '../../ui'
import { statusWord } from '../chat'
import type { BuildHeadline } from '../queue'

/** What the header says about the project: the badge, what sits beside it, and the whole sentence. */
export interface ProjectHeadline {
  tone: Tone
  /** The badge: a task card's own status word ("Stopped"), or a build's ("Building · 2 of 3"). */
  label: string
  /** Short, beside the badge (a build's task), or null. */
  detail: string | null
  /** The story behind the detail, on hover; null without one. */
  hint: string | null
  /** The same status as one sentence ("Last task was stopped"): the badge's tooltip and its accessible text. */
  sentence: string
}

/** The sentence for a task that ended as its run row says (the row its card reads). */
const endedSentence: Record<Exclude<TaskCardStatus, 'queued' | 'starting'>, string> = {
  running: 'A task is running',
  complete: 'Last task complete',
  failed: 'Last task failed',
  stopped: 'Last task was stopped',
  waiting: 'Waiting for your answer',
  interrupted: 'Last task was interrupted',
}

const isRunStatus = (s: string): s is keyof typeof endedSentence => s in endedSentence

/**
 * The one decision behind the header's status (DESIGN.md §15: one source per fact). A panel build speaks first while
 * it runs (or when it ended needing the user and no chat task runs since), then a running task, then the project's
 * newest run row (what its card says), and only before any run the project's own `.ralph/status` (a new project
 * waiting for its first message). `.ralph/status` is never read for a task that has a row: it says failed for a
 * stopped or dismissed task, and stays `waiting` until the next read after a question is dismissed.
 */
export interface HeadlineInput {
  state: ProjectState
  taskRunning: boolean
  build: BuildHeadline | null
  /** While a build runs, `taskRunning` may be its own task lock speaking: the build's words win. */
  buildRunning: boolean
}

export function projectHeadline({ state, taskRunning, build, buildRunning }: HeadlineInput): ProjectHeadline {
  if (build && (buildRunning || !taskRunning)) {
    const more = build.hint ?? build.detail
    return { ...build, sentence: more ? `${build.label}: ${more}` : build.label }
  }
  if (taskRunning) return { ...statusWord.running, detail: null, hint: null, sentence: endedSentence.running }
  const row = state.lastTask?.status
  if (row && isRunStatus(row)) {
    return { ...statusWord[row], detail: null, hint: null, sentence: endedSentence[row] }
  }
  return { ...folderWords(state), detail: null, hint: null }
}

/** Before any task run: only `.ralph/` can say anything (a project run before the app kept run rows, too). */
function folderWords(state: ProjectState): Pick<ProjectHeadline, 'tone' | 'label' | 'sentence'> {
  switch (state.status) {
    case 'idle':
      return { tone: 'neutral', label: 'Idle', sentence: 'Idle — no task yet' }
    case 'waiting':
      // `waiting` is both a new project's state and a task's pending question.
      return state.taskCount > 0
        ? { ...statusWord.waiting, sentence: endedSentence.waiting }
        : { tone: 'neutral', label: 'Ready', sentence: 'Waiting for your first message' }
    default:
      return { ...statusWord[state.status], sentence: endedSentence[state.status] }
  }
}

/**
 * The loop's phase, only while a task runs: `.ralph/phase` keeps the last one after a task ends, where its card
 * shows every step done (or the one that ended it). Null: nothing to name.
 */
export function currentPhase(state: ProjectState, taskRunning: boolean): string | null {
  return taskRunning && state.phase ? state.phase.toUpperCase() : null
}

/**
 * The newest task as its card names it ("Task 7: Add a footer · Stopped"), not a count: `.ralph/task-counter`
 * counts every attempt of a queue build and gives numbers back on a rollback, so a count never matched the cards.
 */
export function lastTaskWords(state: ProjectState): string {
  const last = state.lastTask
  if (!last) return 'None yet'
  const name = `Task ${last.task}${last.title ? `: ${last.title}` : ''}`
  return isRunStatus(last.status) ? `${name} · ${statusWord[last.status].label}` : name
}
