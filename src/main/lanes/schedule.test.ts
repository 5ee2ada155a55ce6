import { describe, expect, it } from 'vitest'
import type { TaskView } from '../../shared/queue'
import {
  laneOfEvent,
  schedule,
  tagLane,
  tasksInBuildOrder,
  type QueueTask,
  type Schedule,
  type ScheduleInput,
  type TaskInLane,
} from './schedule'

const t = (id: string, deps: string[] = [], status: QueueTask['status'] = 'pending'): QueueTask => ({
  id,
  deps,
  status,
})
const running = (taskId: string, lane: number): TaskInLane => ({ taskId, lane, state: 'running' })
const finished = (taskId: string, lane: number, finishedAt: number): TaskInLane => ({
  taskId,
  lane,
  state: 'finished',
  finishedAt,
})
const merging = (taskId: string, lane: number, finishedAt = 0): TaskInLane => ({
  taskId,
  lane,
  state: 'merging',
  finishedAt,
})

function run(over: Partial<ScheduleInput> & Pick<ScheduleInput, 'tasks'>): Schedule {
  return schedule({
    merged: new Set(),
    inLanes: [],
    escalated: new Set(),
    skipped: new Set(),
    parallel: 4,
    ...over,
  })
}

const starts = (s: Schedule): string[] => s.start.map((x) => `${x.taskId}@${x.lane}`)
const holds = (s: Schedule): string[] => s.held.map((h) => `${h.taskId}:${h.kind}`)

describe('schedule: which tasks start, and in which lane', () => {
  it.each<{
    name: string
    input: Partial<ScheduleInput> & Pick<ScheduleInput, 'tasks'>
    start: string[]
    held: string[]
    free: number[]
  }>([
    { name: 'an empty queue starts nothing', input: { tasks: [] }, start: [], held: [], free: [1, 2, 3, 4] },
    {
      name: 'independent tasks start in build order in lanes 1, 2 …; the rest wait for a lane',
      input: { tasks: [t('t-a'), t('t-b'), t('t-c')], parallel: 2 },
      start: ['t-a@1', 't-b@2'],
      held: ['t-c:no-free-lane'],
      free: [],
    },
    {
      name: 'the lowest free lanes are taken first',
      input: {
        tasks: [t('t-x'), t('t-y'), t('t-a'), t('t-b'), t('t-c')],
        inLanes: [running('t-x', 1), finished('t-y', 3, 10)],
        parallel: 4,
      },
      start: ['t-a@2', 't-b@4'],
      held: ['t-c:no-free-lane'],
      free: [],
    },
    {
      name: 'a task waiting to merge keeps its lane: parallel bounds the lanes held',
      input: { tasks: [t('t-x'), t('t-a')], inLanes: [finished('t-x', 1, 5)], parallel: 1 },
      start: [],
      held: ['t-a:no-free-lane'],
      free: [],
    },
    {
      name: 'lanes above a lowered parallel still count: nothing starts while they are held',
      input: {
        tasks: [t('t-x'), t('t-y'), t('t-a')],
        inLanes: [running('t-x', 5), running('t-y', 6)],
        parallel: 2,
      },
      start: [],
      held: ['t-a:no-free-lane'],
      free: [],
    },
    {
      name: 'a chain starts only its head',
      input: { tasks: [t('t-a'), t('t-b', ['t-a']), t('t-c', ['t-b'])] },
      start: ['t-a@1'],
      held: ['t-b:waits-for-merge', 't-c:waits-for-merge'],
      free: [2, 3, 4],
    },
    {
      name: 'a merged dependency, or one gone from the queue (accepted), lets the task start',
      input: {
        tasks: [t('t-a'), t('t-b', ['t-a']), t('t-c', ['t-gone'])],
        merged: new Set(['t-a']),
      },
      start: ['t-b@1', 't-c@2'],
      held: [],
      free: [3, 4],
    },
    {
      name: 'a dependency that is done but not merged (not accepted) holds the task',
      input: { tasks: [t('t-a', [], 'done'), t('t-b', ['t-a'])] },
      start: [],
      held: ['t-b:waits-for-merge'],
      free: [1, 2, 3, 4],
    },
    {
      name: 'a task already in a lane is never started again, nor a duplicate of it',
      input: { tasks: [t('t-a'), t('t-a'), t('t-b')], inLanes: [running('t-a', 2)] },
      start: ['t-b@1'],
      held: [],
      free: [3, 4],
    },
    {
      name: 'done, merged, escalated and skipped tasks do not start',
      input: {
        tasks: [t('t-d', [], 'done'), t('t-m'), t('t-e'), t('t-s'), t('t-ok')],
        merged: new Set(['t-m']),
        escalated: new Set(['t-e']),
        skipped: new Set(['t-s']),
      },
      start: ['t-ok@1'],
      held: ['t-e:escalated', 't-s:skipped'],
      free: [2, 3, 4],
    },
    {
      name: 'a dependency on an escalated task holds the dependant, at any depth; the rest goes on',
      input: {
        tasks: [t('t-a'), t('t-b', ['t-a']), t('t-c', ['t-b']), t('t-d')],
        escalated: new Set(['t-a']),
      },
      start: ['t-d@1'],
      held: ['t-a:escalated', 't-b:waits-for-person', 't-c:waits-for-person'],
      free: [2, 3, 4],
    },
    {
      name: 'a merged task whose lane is still being removed keeps the lane taken',
      input: {
        tasks: [t('t-a'), t('t-b', ['t-a']), t('t-c')],
        merged: new Set(['t-a']),
        inLanes: [finished('t-a', 1, 3)],
        parallel: 2,
      },
      start: ['t-b@2'],
      held: ['t-c:no-free-lane'],
      free: [],
    },
    {
      name: 'a dependency cycle never starts and is not a person’s wait',
      input: { tasks: [t('t-a', ['t-b']), t('t-b', ['t-a']), t('t-c')] },
      start: ['t-c@1'],
      held: ['t-a:waits-for-merge', 't-b:waits-for-merge'],
      free: [2, 3, 4],
    },
  ])('$name', ({ input, start, held, free }) => {
    const s = run(input)
    expect(starts(s)).toEqual(start)
    expect(holds(s)).toEqual(held)
    expect(s.freeLanes).toEqual(free)
  })

  it('says why each task waits, naming the dependency and where it is', () => {
    const s = run({
      tasks: [
        t('t-a'),
        t('t-r'),
        t('t-f'),
        t('t-m'),
        t('t-d', [], 'done'),
        t('t-b', ['t-a', 't-r']),
        t('t-c', ['t-f', 't-m', 't-d', 't-n']),
        t('t-n'),
      ],
      inLanes: [running('t-r', 2), finished('t-f', 3, 7), merging('t-m', 4, 6)],
      parallel: 5,
    })
    expect(starts(s)).toEqual(['t-a@1', 't-n@5'])
    expect(Object.fromEntries(s.held.map((h) => [h.taskId, [h.waitsFor, h.reason]]))).toEqual({
      't-b': [
        ['t-a', 't-r'],
        'waits until t-a (starting in lane 1) and t-r (building in lane 2) are merged.',
      ],
      't-c': [
        ['t-f', 't-m', 't-d', 't-n'],
        'waits until t-f (finished in lane 3, waiting to merge), t-m (merging from lane 4), ' +
          't-d (done, not accepted yet) and t-n (not started yet) are merged.',
      ],
    })
  })

  it('says on whom a task waits for a person, and which of them is escalated or skipped', () => {
    const s = run({
      tasks: [t('t-a'), t('t-s'), t('t-b', ['t-a']), t('t-c', ['t-b', 't-s']), t('t-d', ['t-a', 't-s'])],
      escalated: new Set(['t-a']),
      skipped: new Set(['t-s']),
    })
    expect(Object.fromEntries(s.held.map((h) => [h.taskId, h.reason]))).toEqual({
      't-a': 'is escalated: it waits for a person.',
      't-s': 'is skipped by this build.',
      't-b': 'depends on t-a, which waits for a person (t-a is escalated).',
      't-c': 'depends on t-b and t-s, which wait for a person (t-a is escalated, t-s is skipped).',
      't-d': 'depends on t-a and t-s, which wait for a person (t-a is escalated, t-s is skipped).',
    })
    expect(s.held.find((h) => h.taskId === 't-c')!.waitsFor).toEqual(['t-b', 't-s'])
  })

  it('says how many lanes are in use when a ready task waits for one', () => {
    const s = run({ tasks: [t('t-x'), t('t-a'), t('t-b')], inLanes: [running('t-x', 1)], parallel: 2 })
    expect(s.held).toEqual([
      {
        taskId: 't-b',
        kind: 'no-free-lane',
        waitsFor: [],
        reason: 'is ready and waits for a free lane (2 of 2 in use).',
      },
    ])
  })

  it('never gives one task two lanes nor one lane two tasks, however often it is asked', () => {
    // Carrying out each answer and asking again, as the orchestration does: every task ends in exactly one lane.
    const tasks = ['t-a', 't-b', 't-c', 't-d', 't-e', 't-f'].map((id, i) => t(id, i === 5 ? ['t-a'] : []))
    let inLanes: TaskInLane[] = []
    const merged = new Set<string>()
    const seen = new Map<string, number>()
    for (let step = 0; step < 20 && merged.size < tasks.length; step++) {
      const s = run({ tasks, inLanes, merged, parallel: 3 })
      for (const x of s.start) {
        expect(seen.has(x.taskId)).toBe(false)
        seen.set(x.taskId, x.lane)
        inLanes.push(running(x.taskId, x.lane))
      }
      expect(new Set(inLanes.map((l) => l.lane)).size).toBe(inLanes.length)
      expect(inLanes.length).toBeLessThanOrEqual(3)
      if (s.mergeNext) {
        merged.add(s.mergeNext)
        inLanes = inLanes.filter((l) => l.taskId !== s.mergeNext)
      }
      // The oldest running task finishes each step.
      const first = inLanes.find((l) => l.state === 'running')
      if (first) inLanes = inLanes.map((l) => (l === first ? finished(l.taskId, l.lane, step) : l))
    }
    expect([...merged].sort()).toEqual(tasks.map((x) => x.id).sort())
    expect(seen.get('t-f')).toBeDefined()
  })
})

describe('tasksInBuildOrder', () => {
  it('puts the pending tasks in build order first, then the rest in file order, each once', () => {
    const view = (id: string, deps: string[], status: QueueTask['status']) =>
      ({ ...t(id, deps, status), name: id }) as unknown as TaskView
    const tasks = [
      view('t-d', [], 'done'),
      view('t-b', ['t-a'], 'pending'),
      view('t-a', [], 'pending'),
      view('t-x', ['t-y'], 'pending'),
      view('t-y', ['t-x'], 'pending'),
      view('t-a', [], 'pending'),
    ]
    expect(tasksInBuildOrder({ tasks, order: ['t-a', 't-b'] })).toEqual([
      t('t-a'),
      t('t-b', ['t-a']),
      t('t-d', [], 'done'),
      t('t-x', ['t-y']),
      t('t-y', ['t-x']),
    ])
  })
})

describe('schedule: the merge queue', () => {
  it.each<{
    name: string
    input: Partial<ScheduleInput> & Pick<ScheduleInput, 'tasks'>
    queue: string[]
    next: string | null
    held: string[]
  }>([
    {
      name: 'nothing finished, nothing to merge',
      input: { tasks: [t('t-a')], inLanes: [running('t-a', 1)] },
      queue: [],
      next: null,
      held: [],
    },
    {
      name: 'first finished first',
      input: {
        tasks: [t('t-a'), t('t-b'), t('t-c')],
        inLanes: [finished('t-a', 1, 30), finished('t-b', 2, 10), running('t-c', 3)],
      },
      queue: ['t-b', 't-a'],
      next: 't-b',
      held: [],
    },
    {
      name: 'finished at the same time: build order',
      input: { tasks: [t('t-a'), t('t-b')], inLanes: [finished('t-b', 1, 5), finished('t-a', 2, 5)] },
      queue: ['t-a', 't-b'],
      next: 't-a',
      held: [],
    },
    {
      name: 'one merge at a time: while one merges, none is next',
      input: { tasks: [t('t-a'), t('t-b')], inLanes: [finished('t-a', 1, 1), merging('t-b', 2, 9)] },
      queue: ['t-b', 't-a'],
      next: null,
      held: [],
    },
    {
      name: 'a task whose dependency is still merging waits behind it',
      input: { tasks: [t('t-a'), t('t-b', ['t-a'])], inLanes: [merging('t-a', 1, 9), finished('t-b', 2, 1)] },
      queue: ['t-a', 't-b'],
      next: null,
      held: [],
    },
    {
      name: 'a dependency that finished later still merges first; the others keep their order',
      input: {
        tasks: [t('t-a'), t('t-c', ['t-a']), t('t-d')],
        inLanes: [finished('t-c', 1, 1), finished('t-d', 2, 2), finished('t-a', 3, 3)],
      },
      queue: ['t-d', 't-a', 't-c'],
      next: 't-d',
      held: [],
    },
    {
      name: 'a dependency still building holds the finished dependant out of the queue',
      input: { tasks: [t('t-a'), t('t-b', ['t-a'])], inLanes: [running('t-a', 1), finished('t-b', 2, 1)] },
      queue: [],
      next: null,
      held: ['t-b'],
    },
    {
      name: 'a merged task still in its lane is not merged again',
      input: {
        tasks: [t('t-a'), t('t-b')],
        merged: new Set(['t-a']),
        inLanes: [merging('t-a', 1, 1), finished('t-b', 2, 2)],
      },
      queue: ['t-b'],
      next: 't-b',
      held: [],
    },
  ])('$name', ({ input, queue, next, held }) => {
    const s = run(input)
    expect(s.mergeQueue).toEqual(queue)
    expect(s.mergeNext).toBe(next)
    expect(s.mergeHeld.map((h) => h.taskId)).toEqual(held)
  })

  it('says what a held merge waits for', () => {
    const s = run({
      tasks: [t('t-a'), t('t-b', ['t-a'])],
      inLanes: [running('t-a', 1), finished('t-b', 2, 1)],
    })
    expect(s.mergeHeld).toEqual([
      { taskId: 't-b', waitsFor: ['t-a'], reason: 'cannot merge before t-a (building in lane 1) is merged.' },
    ])
  })
})

describe('schedule: inconsistent input is refused with what is wrong', () => {
  it.each<{ name: string; input: Partial<ScheduleInput> & Pick<ScheduleInput, 'tasks'>; error: RegExp }>([
    {
      name: 'parallel 0',
      input: { tasks: [], parallel: 0 },
      error: /parallel is a whole number from 1 to 8; got 0/,
    },
    { name: 'parallel 9', input: { tasks: [], parallel: 9 }, error: /from 1 to 8; got 9/ },
    { name: 'parallel 1.5', input: { tasks: [], parallel: 1.5 }, error: /got 1.5/ },
    { name: 'lane 0', input: { tasks: [], inLanes: [running('t-a', 0)] }, error: /lane number .* got 0/ },
    {
      name: 'two tasks in one lane',
      input: { tasks: [], inLanes: [running('t-a', 1), running('t-b', 1)] },
      error: /Lane 1 is given to both t-a and t-b/,
    },
    {
      name: 'one task in two lanes',
      input: { tasks: [], inLanes: [running('t-a', 1), running('t-a', 2)] },
      error: /t-a is in two lanes \(1 and 2\)/,
    },
    {
      name: 'finished without a time',
      input: { tasks: [], inLanes: [{ taskId: 't-a', lane: 1, state: 'finished' }] },
      error: /t-a is finished in lane 1 without the time it finished/,
    },
    {
      name: 'two merging at once',
      input: { tasks: [], inLanes: [merging('t-a', 1), merging('t-b', 2)] },
      error: /t-a and t-b are both merging: merges go one at a time/,
    },
  ])('$name', ({ input, error }) => {
    expect(() => run(input)).toThrow(error)
  })
})

describe('the lane field of build events', () => {
  const tags = {
    byTaskId: new Map([['t-a', 2]]),
    byTaskNumber: new Map([
      [4, 2],
      [7, 3],
    ]),
  }
  it.each<{ event: { type: string; taskId?: unknown; task?: unknown }; lane: number | null }>([
    { event: { type: 'build.started' }, lane: null },
    { event: { type: 'build.finished' }, lane: null },
    { event: { type: 'build.budget' }, lane: null },
    { event: { type: 'build.notification', taskId: null }, lane: null },
    { event: { type: 'build.attempt', taskId: 't-a', task: 4 }, lane: 2 },
    { event: { type: 'verify.completed', taskId: 't-a' }, lane: 2 },
    { event: { type: 'iteration.started', task: 7 }, lane: 3 },
    { event: { type: 'task.completed', task: 5 }, lane: null },
    { event: { type: 'build.accepted', taskId: 't-z' }, lane: null },
    { event: { type: 'build.attempt', taskId: 't-z', task: 7 }, lane: 3 },
  ])('$event.type $event.taskId $event.task → $lane', ({ event, lane }) => {
    expect(laneOfEvent(event, tags)).toBe(lane)
  })

  it('adds lane to an event without changing it, and keeps a lane the event already carries', () => {
    const e = { type: 'iteration.started', task: 4, iteration: 1 }
    expect(tagLane(e, 2)).toEqual({ ...e, lane: 2 })
    expect(tagLane(e, null)).toEqual({ ...e, lane: null })
    expect(e).not.toHaveProperty('lane')
    const tagged = { type: 'iteration.started', task: 4, lane: 3 }
    expect(tagLane(tagged, null).lane).toBe(3)
    expect(tagLane(tagged, 2).lane).toBe(3)
    expect(() => tagLane(e, 0)).toThrow(/lane number/)
  })
})
