// Helpers for the queue's unit tests: states built from records, deterministic ids.
import type { PlanRecord, TaskRecord } from '../../shared/queue'
import { applyCommand, type QueueCommand } from './commands'
import type { RandomChars } from './ids'
import { parsePlan, type QueueState } from './planFile'

export const stateOf = (...records: PlanRecord[]): QueueState =>
  parsePlan(records.map((r) => JSON.stringify(r)).join('\n') + '\n')

export const task = (id: string, extra: Partial<TaskRecord> = {}): TaskRecord => ({
  t: 'task',
  id,
  spec: 'a.md',
  name: `task ${id}`,
  s: 'p',
  ...extra,
})

export const spec = (name = 'a.md'): PlanRecord => ({ t: 'spec', spec: name })

/** Ids 0001, 0002 … in order (the random source the tests hand to commands). */
export function counter(): RandomChars {
  let n = 0
  return (length) => String(++n).padStart(length, '0')
}

/** Applies commands in order, returning every intermediate state (the history a real queue would record). */
export function run(state: QueueState, ...cmds: QueueCommand[]): QueueState[] {
  const random = counter()
  const states = [state]
  for (const cmd of cmds) states.push(applyCommand(states[states.length - 1]!, cmd, { random }).state)
  return states
}
