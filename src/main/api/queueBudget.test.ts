import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { BuildBudgetStatus } from '../../shared/api/queue'
import type { BuildProgress } from '../../shared/queueBuild'
import { startFakeLlmServer, type FakeLlmServer } from '../../../tests/fixtures/fakeLlmServer'
import { parsed, tools } from '../../../tests/integration/loop/harness'
import { openQueueProject, type QueueProject } from '../../../tests/helpers/queueProject'

// `queue.buildStatus` carries a panel build's budget and spend: a real core, runBuild against the fake LLM.
describe('queue API: a build’s budget in its status', { timeout: 120_000 }, () => {
  let llm: FakeLlmServer
  let p: QueueProject
  let projectId: number
  const call = <T = unknown>(name: string, input: unknown) => p.call<T>(name, input)
  const status = () =>
    call<BuildProgress & { budget?: BuildBudgetStatus }>('queue.buildStatus', { projectId })

  beforeAll(async () => {
    llm = await startFakeLlmServer()
  })
  afterAll(() => llm.close())

  beforeEach(async () => {
    p = await openQueueProject({
      env: {
        RALPH_PROVIDER: 'openai-compatible',
        RALPH_MODEL: 'fake-model',
        RALPH_BASE_URL: llm.baseUrl,
        RALPH_API_KEY: '',
      },
    })
    projectId = p.projectId
  })
  afterEach(() => p.close())

  it('has no budget before a build; a build that hits its time budget reports the limits, the spend and the stop', async () => {
    expect(await status()).not.toHaveProperty('budget')
    await call('queue.addTask', {
      projectId,
      name: 'Write a.txt',
      accept: ['DET: `node -e 0` exits 0'],
      spec: 'spec.md',
    })
    // A second of time budget; the model takes four to answer: the build stops inside the task.
    const slow = (delayMs?: number) => ({
      ...tools(['write_file', { path: 'a.txt', content: 'a\n' }], ['mark_complete', { summary: 'Done.' }]),
      ...(delayMs ? { delayMs } : {}),
    })
    llm.enqueue(parsed({ type: 'fresh', title: 'Write a.txt' }), slow(4_000))
    await call('queue.build', { projectId, maxCostUsd: 5, maxMinutes: 1 / 60 })
    const running = await status()
    expect(running.budget).toMatchObject({ maxCostUsd: 5, maxMinutes: 1 / 60, alerts: [] })

    await expect.poll(async () => (await status()).running, { timeout: 60_000 }).toBe(false)
    const done = await status()
    expect(done.result?.status).toBe('budget')
    expect(done.budget).toEqual({
      maxCostUsd: 5,
      maxMinutes: 1 / 60,
      spentUsd: done.result!.costUsd,
      alerts: [expect.objectContaining({ level: 'stop', kind: 'time', limit: 1 / 60 })],
    })
  })
})
