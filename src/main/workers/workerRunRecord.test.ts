import { expect, it } from 'vitest'
import type { LoopEvent } from '../../shared/loopEvents'
import { RunsRepo } from '../store'
import { useTempDatabase } from '../store/testkit'
import { WorkerRunRecord } from './workerRunRecord'

const store = useTempDatabase('ralph-worker-runs-')

const receipt = {
  inputTokens: 30,
  outputTokens: 12,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  costUsd: 0.25,
  calls: 3,
  iterations: 1,
  checkpoints: 0,
  limitWaits: 0,
  limitWaitMs: 0,
  models: [
    { provider: 'openai', model: 'gpt-4o', calls: 2, inputTokens: 20, outputTokens: 10, costUsd: 0.2 },
    { provider: 'openai', model: 'gpt-4o-mini', calls: 1, inputTokens: 10, outputTokens: 2, costUsd: 0.05 },
  ],
}
const stream: LoopEvent[] = [
  { type: 'task.started', task: 4, message: 'Write a.txt', continued: false },
  { type: 'iteration.started', task: 4, iteration: 1, phase: 'build', maxIterations: 5 },
  {
    type: 'tool.called',
    task: 4,
    iteration: 1,
    name: 'write_file',
    args: { path: 'a.txt' },
    ok: true,
    summary: 'Wrote a.txt',
    durationMs: 3,
  },
  {
    type: 'gate.result',
    task: 4,
    iteration: 1,
    gate: 'has-summary',
    severity: 'pass',
    message: 'ok',
    attempt: 1,
  },
  {
    type: 'task.completed',
    task: 4,
    iteration: 1,
    summary: 'Done',
    iterations: 1,
    postTag: 'task-4-post',
    costUsd: 0.25,
    receipt,
  },
]

it("a worker's streamed events become the user's project's run row with its lane, tool calls, usage and receipt", () => {
  const runs = new RunsRepo(store.db)
  const record = new WorkerRunRecord({ runs, projectId: null, projectPath: '/p', lane: 2 })
  for (const e of stream) record.take(e)
  const row = runs.getRun(record.runId!)!
  expect(row).toMatchObject({ projectPath: '/p', task: 4, lane: 2, status: 'complete', iterations: 1 })
  expect(runs.toolCallsForRun(row.id).map((c) => c.name)).toEqual(['write_file'])
  expect(runs.costForRun(row.id)).toMatchObject({ usd: 0.25, inputTokens: 30, outputTokens: 12 })
  expect(runs.savedReceipt(row.id)).toEqual(receipt)
  // Its result refused afterwards: the row fails (nothing was merged), while a late Stop leaves a finished row be.
  record.closeUnfinished('stopped', 'Stopped.')
  expect(runs.getRun(row.id)!.status).toBe('complete')
  record.closeUnfinished('failed', 'The result bundle was refused.')
  expect(runs.getRun(row.id)).toMatchObject({ status: 'failed', reason: 'error' })
})

it('a worker that dies mid-task leaves no running row; one that never started its task leaves none', () => {
  const runs = new RunsRepo(store.db)
  const died = new WorkerRunRecord({ runs, projectId: null, projectPath: '/p', lane: 1 })
  died.take(stream[0]!)
  died.take(stream[1]!)
  died.closeUnfinished('stopped', 'Stopped.')
  expect(runs.getRun(died.runId!)).toMatchObject({ status: 'stopped', reason: 'stopped', iterations: 1 })
  const never = new WorkerRunRecord({ runs, projectId: null, projectPath: '/p', lane: 1 })
  never.closeUnfinished('failed', 'It died.')
  expect(never.runId).toBeNull()
})
