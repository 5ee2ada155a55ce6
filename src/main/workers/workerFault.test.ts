import { expect, it } from 'vitest'
import { AppError } from '../../shared/errors'
import type { LaneRunInput, LaneRunResult } from '../lanes'
import { memoryLogger } from '../workspace/logFile'
import { withRetry, type PlacedRunner, type WorkerPlacedEvent } from './laneRunner'
import { classifyJobEnd, secondFaultMessage, WorkerFault, type JobEndFacts } from './workerFault'

const facts = (over: Partial<JobEndFacts>): JobEndFacts => ({
  stopped: false,
  engineFailed: false,
  pastDeadline: false,
  result: 'taken',
  ...over,
})

it("a job's end is a fault only when the worker, not the task, failed; Stop never is", () => {
  // A result came back: whatever the task's outcome (gates, stall, a question), it is the build's to decide.
  expect(classifyJobEnd(facts({}))).toBeNull()
  expect(classifyJobEnd(facts({ engineFailed: true }))).toBe('unreachable')
  expect(classifyJobEnd(facts({ pastDeadline: true, result: 'missing' }))).toBe('deadline')
  expect(classifyJobEnd(facts({ result: 'missing' }))).toBe('died')
  expect(classifyJobEnd(facts({ result: 'refused' }))).toBe('bad-result')
  for (const over of [{ engineFailed: true }, { pastDeadline: true }, { result: 'refused' as const }])
    expect(classifyJobEnd(facts({ ...over, stopped: true }))).toBeNull()
  // The engine first: a job that never ran has no deadline or result to speak of.
  expect(classifyJobEnd(facts({ engineFailed: true, pastDeadline: true, result: 'missing' }))).toBe(
    'unreachable',
  )
})

it('the message after a second fault names both places and faults, and what to do', () => {
  const a = new WorkerFault('died', 'k8s: ns/job-a', 'The pod failed (exit code 3).')
  const b = new WorkerFault('unreachable', 'k8s: ns', 'The Kubernetes API cannot be reached.')
  const msg = secondFaultMessage(2, a, b)
  expect(msg).toBe(
    "Lane 2's worker failed twice, and nothing of either attempt was merged: first on k8s: ns/job-a it died before " +
      'it finished (The pod failed (exit code 3).); then on k8s: ns it could not be reached or refused the job (The ' +
      'Kubernetes API cannot be reached.). `ralph workers test` checks the backend; or build with --workers local, ' +
      'or set "workers.retry" to "local" in .ralph/config.json to fall back to this machine.',
  )
  expect(secondFaultMessage(1, a, new WorkerFault('deadline', 'docker: local', 'late'))).toMatch(
    /raise "workers.timeoutMinutes"/,
  )
})

// The retry's decisions, with runners that stand for a backend (the backends themselves: kubernetesBuild.test.ts).
const input = (signal?: AbortSignal) =>
  ({
    lane: { marker: { lane: 3 } },
    task: 7,
    logger: memoryLogger(),
    ...(signal ? { signal } : {}),
  }) as unknown as LaneRunInput
const done = { status: 'complete' } as LaneRunResult
const placement = (events: WorkerPlacedEvent[]) => ({
  taskId: 't-x',
  attempt: 2,
  criteria: [],
  emit: (e: WorkerPlacedEvent) => events.push(e),
})
const failing =
  (where: string, err: Error): PlacedRunner =>
  async (_input, placed) => {
    placed(where)
    throw err
  }
const working =
  (where: string): PlacedRunner =>
  async (_input, placed) => {
    placed(where)
    return done
  }

it('a fault is told and retried once on the retry runner; a second fault fails with both', async () => {
  const events: WorkerPlacedEvent[] = []
  const fault = new WorkerFault('died', 'docker: host-a', 'It died.')
  await expect(
    withRetry(failing('docker: host-a', fault), working('local'), placement(events))(input()),
  ).resolves.toBe(done)
  expect(events).toEqual([
    { type: 'build.worker', taskId: 't-x', task: 7, lane: 3, attempt: 2, where: 'docker: host-a' },
    {
      type: 'build.worker',
      taskId: 't-x',
      task: 7,
      lane: 3,
      attempt: 2,
      where: 'local',
      retryOf: { where: 'docker: host-a', fault: 'It died.' },
    },
  ])
  const twice = withRetry(
    failing('docker: host-a', fault),
    failing('docker: host-b', new WorkerFault('deadline', 'docker: host-b', 'Late.')),
  )
  await expect(twice(input())).rejects.toThrow(/^Lane 3's worker failed twice.*then on docker: host-b/)
})

it("neither the task's own failure nor a Stop is retried", async () => {
  let retried = 0
  const retry: PlacedRunner = async () => {
    retried++
    return done
  }
  const own = new AppError('task-failed', 'The gates failed.')
  await expect(withRetry(failing('local', own), retry)(input())).rejects.toBe(own)
  const stop = new AbortController()
  stop.abort()
  const fault = new WorkerFault('died', 'k8s: ns/j', 'Killed.')
  await expect(withRetry(failing('k8s: ns/j', fault), retry)(input(stop.signal))).rejects.toBe(fault)
  expect(retried).toBe(0)
})
