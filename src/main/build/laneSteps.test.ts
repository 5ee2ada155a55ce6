import { describe, expect, it } from 'vitest'
import { schedule } from '../lanes'
import { decideAttempt, freshAttempts } from './decide'
import {
  historyLine,
  keptInFolder,
  laneFolderFor,
  planUserEdits,
  queueForStarts,
  userEditClashes,
  userEditsMessage,
  wantsSpare,
  userEditsQuestion,
  userEditsStep,
  waitsForMerge,
} from './laneSteps'

const policy = { maxFailures: 3, mode: 'hybrid' as const }

describe('the lanes build’s decisions', () => {
  it('keeps the build’s own files and its notifications in the folder, once each', () => {
    expect(keptInFolder(['.ralph/notifications/a.md', './.ralph/notifications/a.md'])).toEqual([
      '.ralph/plan.jsonl',
      '.ralph/task-counter.txt',
      '.ralph/task-history.md',
      '.ralph/notifications/a.md',
    ])
  })

  it('merges before accepting or handing to a person; rejections, retries and stops happen at once', () => {
    const pass = decideAttempt('t-a', freshAttempts(), { kind: 'verified', outcome: 'PASS' }, policy)
    expect(waitsForMerge(pass.actions)).toBe(true)
    const human = decideAttempt(
      't-a',
      freshAttempts(),
      { kind: 'verified', outcome: 'NEEDS_HUMAN', feedback: 'x' },
      policy,
    )
    expect(waitsForMerge(human.actions)).toBe(true)
    const interactive = decideAttempt(
      't-a',
      freshAttempts(),
      { kind: 'verified', outcome: 'PASS' },
      { ...policy, mode: 'interactive' },
    )
    expect(waitsForMerge(interactive.actions)).toBe(true)
    const fail = decideAttempt(
      't-a',
      freshAttempts(),
      { kind: 'verified', outcome: 'FAIL', feedback: 'f', reason: 'r' },
      policy,
    )
    expect(waitsForMerge(fail.actions)).toBe(false)
    const stopped = decideAttempt(
      't-a',
      freshAttempts(),
      { kind: 'task-failed', reason: 'stopped', message: 'm' },
      policy,
    )
    expect(waitsForMerge(stopped.actions)).toBe(false)
  })

  it('writes the merged task’s history line from its summary’s first prose line', () => {
    expect(historyLine(7, '# Summary\n\nWrote a.txt.\nMore.')).toBe('- Task 7 (complete): Wrote a.txt.')
    expect(historyLine(2, '')).toBe('- Task 2 (complete): merged from its lane')
    expect(historyLine(3, 'x'.repeat(200))).toHaveLength('- Task 3 (complete): '.length + 160)
  })

  it('names the files of a user-edits pause, and at most ten', () => {
    const paths = Array.from({ length: 12 }, (_, i) => `f${i}.ts`)
    const message = userEditsMessage('t-a', 4, paths)
    expect(message).toContain('t-a (task 4)')
    expect(message).toContain('f0.ts, f1.ts')
    expect(message).toContain('and 2 more')
    expect(message).not.toContain('f11.ts')
  })

  it('pauses only for the user’s edits to files the merged task changes', () => {
    const task = new Set(['a.txt', '.ralph/task.md', '.ralph/plan.jsonl'])
    expect(userEditClashes(['a.txt', 'notes.txt', '.ralph/plan.jsonl'], task)).toEqual(['a.txt'])
    expect(userEditClashes(['notes.txt'], task)).toEqual([])
  })

  describe('the user’s edits in an apply’s way', () => {
    const task = new Set(['a.txt', 'b.txt', '.ralph/task.md'])

    it('applies without asking when the edits are only to files the task does not change', () => {
      expect(userEditsStep(['notes.txt'], task, null)).toEqual({
        do: 'apply',
        userEdits: 'keep-theirs',
        keep: [],
        clash: [],
      })
    })

    it('asks about the files the task changes, and only those', () => {
      expect(userEditsStep(['a.txt', 'notes.txt'], task, null)).toEqual({ do: 'ask', paths: ['a.txt'] })
    })

    it('keeps every edit after keep-theirs, also one made while the question was open', () => {
      const answered = { answer: 'keep-theirs' as const, paths: ['a.txt'] }
      expect(userEditsStep(['a.txt', 'b.txt', 'notes.txt'], task, answered)).toEqual({
        do: 'apply',
        userEdits: 'keep-theirs',
        keep: [],
        clash: ['a.txt', 'b.txt'],
      })
    })

    it('takes the task’s version only of the files asked about; the user’s other edits stay', () => {
      const answered = { answer: 'take-task' as const, paths: ['a.txt'] }
      expect(userEditsStep(['a.txt', 'notes.txt'], task, answered)).toEqual({
        do: 'apply',
        userEdits: 'take-task',
        keep: ['notes.txt'],
        clash: ['a.txt'],
      })
      // Another file the task changes, edited while the question was open: asked again, all of them.
      expect(userEditsStep(['a.txt', 'b.txt', 'notes.txt'], task, answered)).toEqual({
        do: 'ask',
        paths: ['a.txt', 'b.txt'],
      })
    })

    it('says what each answer does, naming the snapshot that holds the user’s version', () => {
      const keep = planUserEdits('keep-theirs', 't-a', 4, ['a.txt'])
      expect(keep).toMatchObject({ apply: 'keep-theirs', snapshot: 'task-4-post' })
      expect(keep.postNote).toBe('; kept your version of a.txt')
      expect(keep.message).toContain('refs/lanes/4/merged')
      const take = planUserEdits('take-task', 't-a', 4, ['a.txt'])
      expect(take).toMatchObject({ apply: 'take-task', snapshot: 'task-4-pre' })
      expect(take.message).toContain('your version is in the safety snapshot task-4-pre')
      expect(take.postNote).toContain('yours is in task-4-pre')
      const stop = planUserEdits('stop', 't-a', 4, ['a.txt'])
      expect(stop).toEqual({
        apply: null,
        snapshot: null,
        postNote: '',
        message: userEditsMessage('t-a', 4, ['a.txt']),
      })
    })

    it('asks naming the task, its lane and at most five files', () => {
      const paths = Array.from({ length: 7 }, (_, i) => `f${i}.ts`)
      const q = userEditsQuestion({ id: 't-a', name: 'Write a.txt' }, 4, 2, paths)
      expect(q).toContain('“Write a.txt” (t-a, task 4 from lane 2)')
      expect(q).toContain('f0.ts, f1.ts, f2.ts, f3.ts, f4.ts and 2 more')
      expect(q).toContain('task-4-pre')
      expect(planUserEdits('keep-theirs', 't-a', 4, paths).postNote).toContain('and 2 more')
    })
  })
})

describe('laneFolderFor', () => {
  it('gives a task its slot’s folder when that is free, else the lowest free number up to twice the lanes', () => {
    expect(laneFolderFor(2, new Set([1, 3]), 4)).toBe(2)
    // Slot 1's task waits in the merge train in folder 1: the next task in slot 1 gets folder 2.
    expect(laneFolderFor(1, new Set([1]), 4)).toBe(2)
    expect(laneFolderFor(1, new Set([1, 2, 3, 4]), 4)).toBe(5)
    expect(laneFolderFor(3, new Set([1, 2, 3, 4, 5, 6, 7, 8]), 4)).toBeNull()
    expect(laneFolderFor(1, new Set([1, 2]), 1)).toBeNull()
  })
})

describe('queueForStarts', () => {
  it('reads a task waiting in the merge train as done, so it is neither started again nor counted merged', () => {
    const tasks = [
      { id: 't-a', deps: [], status: 'pending' as const },
      { id: 't-b', deps: ['t-a'], status: 'pending' as const },
      { id: 't-c', deps: [], status: 'pending' as const },
    ]
    expect(queueForStarts(tasks, new Set(['t-a'])).map((t) => [t.id, t.status])).toEqual([
      ['t-a', 'done'],
      ['t-b', 'pending'],
      ['t-c', 'pending'],
    ])
    // With the scheduler: t-c starts in the freed slot, t-b waits for t-a's merge.
    const plan = schedule({
      tasks: queueForStarts(tasks, new Set(['t-a'])),
      merged: new Set(),
      inLanes: [],
      escalated: new Set(),
      skipped: new Set(),
      parallel: 1,
    })
    expect(plan.start).toEqual([{ taskId: 't-c', lane: 1 }])
    expect(plan.held.find((h) => h.taskId === 't-b')?.kind).toBe('waits-for-merge')
  })
})

describe('wantsSpare', () => {
  const at = { parallel: 4, waiting: 4, spares: 0, beingMade: 0, folders: 4 }
  it('makes spares one at a time for the tasks that wait, once the running lanes are made', () => {
    expect(wantsSpare(at)).toBe(true)
    // A lane (a task's or a spare) is being made: the next spare waits for it.
    expect(wantsSpare({ ...at, beingMade: 1 })).toBe(false)
    // As many spares as tasks waiting, and never more than the lanes at once.
    expect(wantsSpare({ ...at, waiting: 2, spares: 2 })).toBe(false)
    expect(wantsSpare({ ...at, waiting: 6, spares: 4, folders: 7 })).toBe(false)
    expect(wantsSpare({ ...at, waiting: 0 })).toBe(false)
  })
  it('keeps the lane folders within twice the lanes, and makes none for a serial build', () => {
    expect(wantsSpare({ ...at, folders: 7 })).toBe(true)
    expect(wantsSpare({ ...at, folders: 8 })).toBe(false)
    expect(wantsSpare({ ...at, parallel: 1, folders: 1 })).toBe(false)
  })
})
