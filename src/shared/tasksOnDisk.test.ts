import { describe, expect, it } from 'vitest'
import { rolledBackTasks } from './tasksOnDisk'

type Kind = 'baseline' | 'task-pre' | 'task-post' | 'manual' | 'safety'
const snap = (tag: string, kind: Kind, task: number | null = null, rollbackTarget: string | null = null) => ({
  tag,
  kind,
  task,
  rollbackTarget,
})
const task = (n: number) => [snap(`task-${n}-pre`, 'task-pre', n), snap(`task-${n}-post`, 'task-post', n)]

describe('rolledBackTasks', () => {
  it('is empty with no rollback, and a failed task (no post) is never counted', () => {
    expect(
      rolledBackTasks([snap('baseline-1', 'baseline'), ...task(1), snap('task-2-pre', 'task-pre', 2)]),
    ).toEqual(new Set())
  })

  it('a rollback to before task 2 takes tasks 2 and 3 off disk; its Undo brings them back', () => {
    const history = [...task(1), ...task(2), ...task(3), snap('safety-10', 'safety', null, 'task-2-pre')]
    expect(rolledBackTasks(history)).toEqual(new Set([2, 3]))
    const undone = [...history, snap('safety-11', 'safety', null, 'safety-10')]
    expect(rolledBackTasks(undone)).toEqual(new Set())
  })

  it('a task after the rollback does not bring the rolled-back one back; a rollback to after a task keeps it', () => {
    const history = [...task(1), ...task(2), snap('safety-10', 'safety', null, 'task-1-post'), ...task(3)]
    expect(rolledBackTasks(history)).toEqual(new Set([2]))
    // Rolling forward to task 2's post snapshot restores task 2 and, by the same token, takes task 3 off disk.
    const forward = [...history, snap('safety-11', 'safety', null, 'task-2-post')]
    expect(rolledBackTasks(forward)).toEqual(new Set([3]))
  })

  it('a pruned rollback target changes nothing rather than guessing', () => {
    expect(rolledBackTasks([...task(1), snap('safety-9', 'safety', null, 'manual-gone')])).toEqual(new Set())
  })
})
