import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { EventEnvelope } from '../../shared/api/contract'
import type { QueueEscalation } from '../../shared/api/queue'
import type { MutationResult } from '../../shared/queue'
import { makeTempDir } from '../../../tests/helpers/tempDir'
import { markTaskDone } from '../queue'
import { createCore, type Core } from './core'

// The panel's Re-plan, escalations and Retry on a real core: real SQLite, files and history ref. (A whole panel
// build that escalates is tests/e2e/queueEscalation.test.ts.)
describe('queue API: re-plan and escalations', () => {
  let home: ReturnType<typeof makeTempDir>
  let work: ReturnType<typeof makeTempDir>
  let core: Core
  let projectId: number
  let seen: EventEnvelope[]

  async function call<T = unknown>(name: string, input: unknown): Promise<T> {
    const result = await core.dispatch(name, input)
    if (!result.ok) throw Object.assign(new Error(result.error.message), { kind: result.error.kind })
    return result.value as T
  }

  beforeEach(async () => {
    home = makeTempDir('ralph-home-')
    work = makeTempDir('ralph-work-')
    writeFileSync(join(work.path, 'spec.md'), '# Spec\n')
    core = createCore({ appDataDir: home.path, env: {}, host: { kind: 'web', openedFrom: 'test' } })
    seen = []
    core.events.subscribe((e) => seen.push(e))
    projectId = (await call<{ id: number }>('projects.open', { path: work.path })).id
  })

  afterEach(async () => {
    await core.close()
    home.cleanup()
    work.cleanup()
  })

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
    await markTaskDone({ projectDir: work.path, id, doneAt: 'abc123' })
    seen = []
    const r = await call<MutationResult>('queue.replan', { projectId, id, note: 'Use CSS grid this time.' })
    expect(r.state.tasks.map((t) => [t.id, t.status])).toEqual([[id, 'pending']])
    expect(r.state.tasks[0]!.reject).toMatch(
      /^Re-plan \(asked by the user, not a failure\).*Use CSS grid this time\.$/,
    )
    expect(r.state.tombstones).toEqual([expect.objectContaining({ id, doneAt: 'abc123' })])
    expect(seen.filter((e) => e.name === 'queue.changed').map((e) => e.payload)).toEqual([
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
