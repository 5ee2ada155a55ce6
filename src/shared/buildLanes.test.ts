import { describe, expect, it } from 'vitest'
import { workingLanes } from './buildLanes'
import { applyBuildEvent, idleBuild, type QueueBuildEvent } from './queueBuild'

const fold = (events: QueueBuildEvent[]) => events.reduce((p, e) => applyBuildEvent(p, e, 7), idleBuild())

const started: QueueBuildEvent = {
  type: 'build.started',
  mode: 'hybrid',
  order: ['t-a', 't-b', 't-c'],
  budget: { maxCostUsd: null, maxMinutes: null },
}
const lane = (taskId: string, lane: number, task: number, attempt = 1): QueueBuildEvent[] => [
  { type: 'build.lane', taskId, lane, task, attempt, base: 'b'.repeat(40) },
  { type: 'build.attempt', taskId, name: `Write ${taskId}`, attempt, task },
]
const verify = (taskId: string, nonce: string, outcome: 'PASS' | 'FAIL'): QueueBuildEvent[] => [
  { type: 'verify.started', taskId, nonce, criteria: [{ ref: 'AC1', kind: 'DET', text: 'x' }], warnings: [] },
  { type: 'verify.completed', taskId, nonce, outcome, costUsd: 0, feedback: '', durationMs: 1 },
]
const iteration = (task: number, n: number): QueueBuildEvent => ({
  type: 'iteration.started',
  task,
  iteration: n,
  phase: 'build',
  maxIterations: 10,
})

describe('the lanes of a parallel build', () => {
  it('follows each lane by its task: iteration, step and merge state, side by side', () => {
    const p = fold([
      started,
      ...lane('t-a', 1, 1),
      ...lane('t-b', 2, 2),
      ...lane('t-c', 3, 3),
      iteration(2, 1),
      iteration(1, 1),
      iteration(1, 2),
      {
        type: 'tool.called',
        task: 3,
        iteration: 1,
        name: 'write_file',
        args: {},
        ok: true,
        summary: '',
        durationMs: 1,
      },
      ...verify('t-b', 'N1', 'PASS'),
    ])
    expect(p.lanes.map((l) => [l.lane, l.taskId, l.name, l.task, l.iteration, l.state, l.step])).toEqual([
      [1, 't-a', 'Write t-a', 1, 2, 'building', 'Iteration 2 of 10 (build)'],
      [2, 't-b', 'Write t-b', 2, 1, 'waiting', 'PASS: waiting to merge'],
      [3, 't-c', 'Write t-c', 3, null, 'building', 'Iteration 1: write_file'],
    ])
    expect(workingLanes(p.lanes)).toHaveLength(3)
    expect(p.log).toContain('t-b: lane 2, task 2 (attempt 1)')
  })

  it('says verifying on the merged tree, merged, rerun after a FAIL there, conflict, and a fresh lane after', () => {
    const p = fold([
      started,
      ...lane('t-a', 1, 1),
      ...lane('t-b', 2, 2),
      ...lane('t-c', 3, 3),
      ...verify('t-a', 'A1', 'PASS'),
      { type: 'build.merged', taskId: 't-a', task: 1, commit: 'c'.repeat(40), verifiedAgain: false },
      { type: 'build.accepted', taskId: 't-a', commit: null },
      ...verify('t-b', 'B1', 'PASS'),
      // A second verification of a waiting lane is the one on the merged tree.
      {
        type: 'verify.started',
        taskId: 't-b',
        nonce: 'B2',
        criteria: [{ ref: 'AC1', kind: 'DET', text: 'x' }],
        warnings: [],
      },
    ])
    expect(p.lanes.map((l) => [l.lane, l.state, l.step])).toEqual([
      [1, 'merged', 'Merged'],
      [2, 'verifying-merged', 'Verifying again on the merged tree'],
      [3, 'building', 'Starting'],
    ])
    const after = [
      {
        type: 'verify.completed',
        taskId: 't-b',
        nonce: 'B2',
        outcome: 'FAIL',
        costUsd: 0,
        feedback: '',
        durationMs: 1,
      },
      {
        type: 'build.rerun',
        taskId: 't-b',
        task: 2,
        reason: 'The verification on the merged tree said FAIL',
      },
      ...verify('t-c', 'C1', 'PASS'),
      {
        type: 'build.rerun',
        taskId: 't-c',
        task: 3,
        reason: 'Your changes conflicted with work merged before',
      },
    ] satisfies QueueBuildEvent[]
    const q = after.reduce((x, e) => applyBuildEvent(x, e, 8), p)
    expect(q.lanes.map((l) => [l.lane, l.state, l.reason])).toEqual([
      [1, 'merged', null],
      [2, 'rerun', 'The verification on the merged tree said FAIL'],
      [3, 'conflict', 'Your changes conflicted with work merged before'],
    ])
    expect(workingLanes(q.lanes)).toEqual([])
    // The rerun takes lane 1: the task leaves the lane it had, lane 1's merged task gives way.
    const rerun: QueueBuildEvent[] = [
      ...lane('t-b', 1, 4, 1),
      { type: 'build.merged', taskId: 't-b', task: 4, commit: 'd'.repeat(40), verifiedAgain: true },
    ]
    const r = rerun.reduce((x, e) => applyBuildEvent(x, e, 9), q)
    expect(r.lanes.map((l) => [l.lane, l.taskId, l.task, l.state, l.step])).toEqual([
      [1, 't-b', 4, 'merged', 'Merged: verified again on the merged tree'],
      [3, 't-c', 3, 'conflict', 'Conflict: runs again on the new base'],
    ])
  })

  it('a FAIL in the lane is rejected; a stop ends every working lane and its task', () => {
    const p = fold([
      started,
      ...lane('t-a', 1, 1),
      ...lane('t-b', 2, 2),
      ...verify('t-a', 'A1', 'FAIL'),
      { type: 'build.rejected', taskId: 't-a', reason: 'AC1: no', failures: 1, commit: null },
      {
        type: 'build.finished',
        status: 'stopped',
        message: 'Stopped.',
        accepted: [],
        costUsd: 0,
        durationMs: 1,
      },
    ])
    expect(p.lanes.map((l) => [l.lane, l.state, l.reason])).toEqual([
      [1, 'rejected', 'AC1: no'],
      [2, 'stopped', null],
    ])
    expect(p.tasks.map((t) => [t.taskId, t.state])).toEqual([
      ['t-a', 'rejected'],
      ['t-b', 'stopped'],
    ])
  })

  it('a serial build has no lanes', () => {
    const p = fold([started, { type: 'build.attempt', taskId: 't-a', name: 'A', attempt: 1, task: 1 }])
    expect(p.lanes).toEqual([])
    expect(p.parallel).toBe(1)
  })
})
