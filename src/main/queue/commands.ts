import type { TaskAddInput, TaskEditInput } from '../../shared/queue'
import type { RandomChars } from './ids'
import type { QueueState } from './planFile'
import { addIssue, closeIssue } from './issueCommands'
import { setSpec, startPlan } from './specCommands'
import { acceptTasks, addTask, cancelTask, editTask, markDone, rejectTask } from './taskCommands'

/** One command of the queue CLI (seed 001), as data. Mutations are pure: state + command → new state. */
export type QueueCommand =
  | { op: 'task-add'; input: TaskAddInput }
  | { op: 'task-edit'; input: TaskEditInput }
  | { op: 'task-done'; id?: string; doneAt: string }
  | { op: 'task-accept'; ids?: string[] }
  | { op: 'task-reject'; id?: string; reason: string }
  | { op: 'task-cancel'; id: string }
  | { op: 'issue-add'; desc: string; spec?: string }
  | { op: 'issue-done'; id?: string }
  | { op: 'set-spec'; spec: string }
  /** A `ralph plan <spec>` start: drops every task and tombstone (the pre-flight asked first), then sets the spec. */
  | { op: 'plan-start'; spec: string }

export type QueueOp = QueueCommand['op']

export interface CommandOutcome {
  state: QueueState
  /** One line saying what changed; the first line of the history commit. */
  message: string
  ids: string[]
  /** The spec the change belongs to (history filter `--spec`). */
  spec: string | null
  warnings: string[]
}

export interface CommandContext {
  random?: RandomChars
}

export function applyCommand(state: QueueState, cmd: QueueCommand, ctx: CommandContext = {}): CommandOutcome {
  switch (cmd.op) {
    case 'task-add':
      return addTask(state, cmd.input, ctx)
    case 'task-edit':
      return editTask(state, cmd.input)
    case 'task-done':
      return markDone(state, cmd.id, cmd.doneAt)
    case 'task-accept':
      return acceptTasks(state, cmd.ids)
    case 'task-reject':
      return rejectTask(state, cmd.id, cmd.reason)
    case 'task-cancel':
      return cancelTask(state, cmd.id)
    case 'issue-add':
      return addIssue(state, cmd.desc, cmd.spec, ctx)
    case 'issue-done':
      return closeIssue(state, cmd.id)
    case 'set-spec':
      return setSpec(state, cmd.spec)
    case 'plan-start':
      return startPlan(state, cmd.spec)
  }
}
