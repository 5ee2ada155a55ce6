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
      [1, 't-a', 'Write t-a', 1, 2, 'building', 'Making the changes'],
      [2, 't-b', 'Write t-b', 2, 1, 'waiting', 'PASS: waiting to merge'],
      [3, 't-c', 'Write t-c', 3, 1, 'building', 'Tool: write_file'],
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

  it('says the iteration once: the step says what happens in it, never "Iteration N of M" again (#38)', () => {
    const p = fold([
      started,
      ...lane('t-a', 1, 1),
      { type: 'iteration.started', task: 1, iteration: 1, phase: 'plan', maxIterations: 50 },
    ])
    const [a] = p.lanes
    expect([a?.iteration, a?.maxIterations, a?.step]).toEqual([1, 50, 'Planning the changes'])
    expect(p.lanes.some((l) => /Iteration/.test(l.step))).toBe(false)
  })

  it('says where each lane runs, and a retry after a worker fault as such', () => {
    const where = (
      taskId: string,
      lane: number,
      task: number,
      at: string,
      retryOf?: { where: string; fault: string },
    ) =>
      ({
        type: 'build.worker',
        taskId,
        task,
        lane,
        attempt: 1,
        where: at,
        ...(retryOf ? { retryOf } : {}),
      }) satisfies QueueBuildEvent
    const p = fold([
      started,
      ...lane('t-a', 1, 1),
      ...lane('t-b', 2, 2),
      ...lane('t-c', 3, 3),
      where('t-a', 1, 1, 'local'),
      where('t-b', 2, 2, 'docker: build-box:2376'),
      where('t-c', 3, 3, 'k8s: ralph/ralph-job-3'),
      iteration(2, 1),
    ])
    expect(p.lanes.map((l) => [l.lane, l.where, l.retryOf])).toEqual([
      [1, 'local', null],
      [2, 'docker: build-box:2376', null],
      [3, 'k8s: ralph/ralph-job-3', null],
    ])
    // The docker worker died: the lane runs again on this machine, and says which placement it retries.
    const fault = { where: 'docker: build-box:2376', fault: 'The container was killed.' }
    const q = applyBuildEvent(p, where('t-b', 2, 2, 'local', fault), 8)
    expect(q.lanes[1]).toMatchObject({
      lane: 2,
      taskId: 't-b',
      where: 'local',
      retryOf: fault,
      state: 'building',
    })
    expect(q.log.at(-1)).toBe(
      't-b runs again on local: docker: build-box:2376 failed (The container was killed.)',
    )
    // A fresh lane for the task forgets where the old one ran until the build says again.
    const r = lane('t-b', 2, 4, 2).reduce((x, e) => applyBuildEvent(x, e, 9), q)
    expect(r.lanes[1]).toMatchObject({ task: 4, where: null, retryOf: null })
    // An event for a task without a lane changes nothing.
    expect(applyBuildEvent(r, where('t-z', 5, 9, 'local'), 10).lanes).toBe(r.lanes)
  })

  it('a serial build has no lanes', () => {
    const p = fold([started, { type: 'build.attempt', taskId: 't-a', name: 'A', attempt: 1, task: 1 }])
    expect(p.lanes).toEqual([])
    expect(p.parallel).toBe(1)
  })
})
