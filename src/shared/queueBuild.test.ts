import { describe, expect, it } from 'vitest'
import {
  applyBuildEvent,
  groupVerifications,
  idleBuild,
  queueBuildEventSchema,
  type QueueBuildEvent,
} from './queueBuild'

const fold = (events: QueueBuildEvent[]) => events.reduce((p, e) => applyBuildEvent(p, e, 7), idleBuild())

describe('build progress', () => {
  it('follows a task through its attempts; a stop marks the task it was on', () => {
    const p = fold([
      { type: 'build.started', mode: 'yolo', order: ['t-a'], budget: { maxCostUsd: 1, maxMinutes: null } },
      { type: 'build.attempt', taskId: 't-a', name: 'A', attempt: 1, task: 1 },
      { type: 'build.rejected', taskId: 't-a', reason: 'AC1: no', failures: 1, commit: null },
      { type: 'build.attempt', taskId: 't-a', name: 'A', attempt: 2, task: 2 },
      {
        type: 'tool.called',
        task: 2,
        iteration: 3,
        name: 'write_file',
        args: {},
        ok: true,
        summary: '',
        durationMs: 1,
      },
    ])
    expect(p).toMatchObject({
      running: true,
      mode: 'yolo',
      startedAt: 7,
      current: { taskId: 't-a', attempt: 2, step: 'Iteration 3: write_file' },
      tasks: [{ taskId: 't-a', attempts: 2, state: 'building' }],
    })
    expect(p.log).toEqual([
      'Build (yolo): 1 pending task',
      't-a "A": attempt 1',
      't-a rejected (failure 1): AC1: no',
      't-a "A": attempt 2',
    ])
    const stopped = applyBuildEvent(
      p,
      {
        type: 'build.finished',
        status: 'stopped',
        message: 'Stopped.',
        accepted: [],
        costUsd: 0,
        durationMs: 1,
      },
      9,
    )
    expect(stopped).toMatchObject({
      running: false,
      current: null,
      tasks: [{ state: 'stopped' }],
      result: { status: 'stopped' },
    })
  })

  it('shows the question about the user’s edits until it is answered or the build ends', () => {
    const started: QueueBuildEvent = {
      type: 'build.started',
      mode: 'yolo',
      order: ['t-a'],
      budget: { maxCostUsd: null, maxMinutes: null },
    }
    const asked: QueueBuildEvent = {
      type: 'build.user-edits',
      taskId: 't-a',
      name: 'Write a',
      task: 3,
      lane: 2,
      paths: ['a.txt'],
      question: 'Keep your edits?',
    }
    const waiting = fold([started, asked])
    expect(waiting.userEdits).toEqual({
      taskId: 't-a',
      name: 'Write a',
      task: 3,
      lane: 2,
      paths: ['a.txt'],
      question: 'Keep your edits?',
    })
    expect(waiting.log.at(-1)).toBe('t-a (task 3, lane 2) waits: you changed a.txt, which it changes too')
    const answered = applyBuildEvent(
      waiting,
      {
        type: 'build.user-edits-answered',
        ...{ taskId: 't-a', task: 3, lane: 2, paths: ['a.txt'], answer: 'take-task' },
        ...{ snapshot: 'task-3-pre', message: 'Took it; yours is in task-3-pre.' },
      },
      8,
    )
    expect(answered.userEdits).toBeNull()
    expect(answered.log.at(-1)).toBe('Took it; yours is in task-3-pre.')
    const ended = applyBuildEvent(
      waiting,
      {
        type: 'build.finished',
        status: 'stopped',
        message: 'Stopped.',
        accepted: [],
        costUsd: 0,
        durationMs: 1,
      },
      8,
    )
    expect(ended.userEdits).toBeNull()
    expect(applyBuildEvent(ended, started, 9).userEdits).toBeNull()
  })

  it('stops saying paused once the task it paused on is accepted (or rejected)', () => {
    const paused = fold([
      {
        type: 'build.started',
        mode: 'interactive',
        order: ['t-a', 't-b'],
        budget: { maxCostUsd: null, maxMinutes: null },
      },
      { type: 'build.attempt', taskId: 't-a', name: 'Write a', attempt: 1, task: 1 },
      { type: 'build.approval', taskId: 't-a', question: 'Accept t-a?' },
      { type: 'build.approved', taskId: 't-a', approved: false },
      {
        type: 'build.finished',
        status: 'paused',
        message: 'Waits for you.',
        accepted: [],
        costUsd: 0,
        durationMs: 1,
      },
    ])
    expect(paused).toMatchObject({
      result: { status: 'paused' },
      tasks: [{ taskId: 't-a', state: 'paused' }],
    })
    // A task the build never touched changes nothing.
    expect(
      applyBuildEvent(paused, { type: 'build.settled', taskId: 't-b', decision: 'accepted' }, 9),
    ).toMatchObject({
      result: { status: 'paused' },
    })
    const accepted = applyBuildEvent(
      paused,
      { type: 'build.settled', taskId: 't-a', decision: 'accepted' },
      9,
    )
    expect(accepted).toMatchObject({ running: false, tasks: [{ taskId: 't-a', state: 'accepted' }] })
    expect(accepted.result?.status).toBe('stopped')
    expect(accepted.result?.message).toMatch(/ended paused on Write a, which you accepted since/)
    const rejected = applyBuildEvent(
      paused,
      { type: 'build.settled', taskId: 't-a', decision: 'rejected' },
      9,
    )
    expect(rejected).toMatchObject({ tasks: [{ state: 'rejected' }], result: { status: 'stopped' } })
  })

  it('names the steps of an attempt, and marks the task an escalation ended on as escalated', () => {
    const started = fold([
      {
        type: 'build.started',
        mode: 'hybrid',
        order: ['t-a'],
        budget: { maxCostUsd: null, maxMinutes: null },
      },
      { type: 'build.attempt', taskId: 't-a', name: 'A', attempt: 3, task: 3 },
      { type: 'task.started', task: 3, message: 'A', continued: false },
    ])
    expect(started.current?.step).toBe('Taking the pre-task snapshot')
    const reading = applyBuildEvent(
      started,
      {
        type: 'snapshot.created',
        task: 3,
        tag: 'task-3-pre',
        kind: 'task-pre',
        commit: 'c',
        added: 0,
        modified: 0,
        deleted: 0,
        durationMs: 1,
      },
      8,
    )
    expect(reading.current?.step).toBe('Reading the task')
    const escalated = applyBuildEvent(
      reading,
      {
        type: 'build.finished',
        status: 'escalated',
        message: 't-a failed 3 times.',
        accepted: [],
        costUsd: 0,
        durationMs: 1,
      },
      9,
    )
    expect(escalated.tasks).toMatchObject([{ taskId: 't-a', state: 'escalated' }])
  })

  it('groups stored verdicts by verification, newest first, with the combined outcome', () => {
    const v = (id: number, nonce: string, answer: 'YES' | 'NO' | 'NEEDS_HUMAN') => ({
      id,
      runId: null,
      nonce,
      ref: `AC${id}`,
      kind: 'LLM' as const,
      criterion: 'c',
      answer,
      reason: 'r',
      costUsd: 0,
      createdAt: id,
    })
    const groups = groupVerifications([
      v(1, 'AAAAAA', 'YES'),
      v(2, 'AAAAAA', 'NO'),
      v(3, 'BBBBBB', 'NEEDS_HUMAN'),
      v(4, 'BBBBBB', 'YES'),
    ])
    expect(groups.map((g) => [g.nonce, g.outcome, g.verdicts.map((x) => x.id)])).toEqual([
      ['BBBBBB', 'NEEDS_HUMAN', [3, 4]],
      ['AAAAAA', 'FAIL', [1, 2]],
    ])
  })
})

// `ralph build --json` events carry `lane` (DESIGN.md §18): the contract keeps it on every kind of event.
describe('the contract of build events', () => {
  it('keeps the lane of the build’s, verification’s and the loop’s events, and refuses a bad one', () => {
    const events = [
      { type: 'build.merged', taskId: 't-a', task: 2, commit: 'c', verifiedAgain: true, lane: 3 },
      {
        type: 'build.finished',
        status: 'complete',
        message: '',
        accepted: [],
        costUsd: 0,
        durationMs: 1,
        lane: null,
      },
      { type: 'verify.started', taskId: 't-a', nonce: 'n', criteria: [], warnings: [], lane: 2 },
      { type: 'iteration.started', task: 2, iteration: 1, phase: 'build', maxIterations: 5, lane: 1 },
      { type: 'build.lane', taskId: 't-a', lane: 4, task: 2, attempt: 1, base: 'b' },
    ]
    for (const e of events)
      expect(queueBuildEventSchema.parse(e)).toMatchObject({ type: e.type, lane: e.lane })
    // A serial build's events have none.
    expect(
      queueBuildEventSchema.parse({ type: 'build.replan', taskId: 't-a', reason: 'r' }),
    ).not.toHaveProperty('lane')
    expect(
      queueBuildEventSchema.safeParse({ type: 'build.replan', taskId: 't', reason: 'r', lane: 0 }).success,
    ).toBe(false)
  })
})
