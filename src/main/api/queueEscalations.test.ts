import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { QueueEscalation } from '../../shared/api/queue'
import type { MutationResult } from '../../shared/queue'
import { openQueueProject, type QueueProject } from '../../../tests/helpers/queueProject'
import { markTaskDone } from '../queue'
import { memoryLogger } from '../workspace/logFile'

/** The queue's changes in these tests: failures they survive are kept in memory. */
const options = { logger: memoryLogger() }

// The panel's Re-plan, escalations and Retry on a real core: real SQLite, files and history ref. (A whole panel
// build that escalates is tests/e2e/queueEscalation.test.ts.)
describe('queue API: re-plan and escalations', () => {
  let p: QueueProject
  let projectId: number
  const call = <T = unknown>(name: string, input: unknown) => p.call<T>(name, input)

  beforeEach(async () => {
    p = await openQueueProject()
    projectId = p.projectId
  })
  afterEach(() => p.close())

  it('Re-plan sends a done task back to pending with a note, as a rejection in the history, announced', async () => {
    const { ids } = await call<MutationResult>('queue.addTask', {
      projectId,
      name: 'grid',
      accept: ['DET: npm test'],
      spec: 'spec.md',
    })
    const id = ids[0]!
    await expect(call('queue.replan', { projectId, id })).rejects.toMatchObject({
      kind: 'invalid-input',
      message: expect.stringContaining(`${id} is not done`),
    })
    await markTaskDone({ projectDir: p.dir, id, doneAt: 'abc123', options })
    p.seen.length = 0
    const r = await call<MutationResult>('queue.replan', { projectId, id, note: 'Use CSS grid this time.' })
    expect(r.state.tasks.map((t) => [t.id, t.status])).toEqual([[id, 'pending']])
    expect(r.state.tasks[0]!.reject).toMatch(
      /^Re-plan \(asked by the user, not a failure\).*Use CSS grid this time\.$/,
    )
    expect(r.state.tombstones).toEqual([expect.objectContaining({ id, doneAt: 'abc123' })])
    expect(p.seen.filter((e) => e.name === 'queue.changed').map((e) => e.payload)).toEqual([
      { projectId, commit: r.commit },
    ])
    await expect(call('queue.replan', { projectId, id: 't-none' })).rejects.toMatchObject({
      kind: 'not-found',
    })

    // Nothing is escalated, so there is nothing to retry.
    expect(await call<{ items: QueueEscalation[] }>('queue.escalations', { projectId })).toEqual({
      items: [],
    })
    await expect(call('queue.retry', { projectId, id })).rejects.toMatchObject({
      kind: 'invalid-input',
      message: expect.stringContaining(`${id} is not escalated`),
    })
  })
})
