import { describe, expect, it } from 'vitest'
import { isAppError } from '../../shared/errors'
import type { LaneRunInput } from '../lanes'
import type { Logger } from '../workspace'
import { runKubernetesJob } from './kubernetes'
import type { KubeConnection } from './kubernetesClient'
import { MAX_JOB_TAR_BYTES, jobSizeProblem } from './kubernetesSpec'
import { withRetry } from './laneRunner'
import { isWorkerFault } from './workerFault'

const quiet = { warn() {}, error() {}, info() {}, debug() {} } as unknown as Logger

describe("a Kubernetes job over its Secret's 1 MiB is refused up front, as the user's choice, never as a fault", () => {
  it('says the size, the limit and what to do; the secrets count toward the Secret too', () => {
    expect(jobSizeProblem(200 * 1024, { RALPH_API_KEY: 'k' })).toBeNull()
    expect(jobSizeProblem(MAX_JOB_TAR_BYTES, {})).toBeNull()
    const big = jobSizeProblem(1500 * 1024, { RALPH_API_KEY: 'k' })
    expect(isAppError(big, 'invalid-input')).toBe(true)
    expect(big?.message).toBe(
      "This lane's job is 1501 KiB (the project's state as a git bundle, the task and its secrets), over the 1008 KiB " +
        "a Kubernetes job can carry: it travels in the job's Secret, which the Kubernetes API limits to 1 MiB. Use " +
        "the docker backend for this project (--workers docker, or Settings → Workers), or make the project's state " +
        'smaller (large files out of the project folder).',
    )
    // A tar that fits alone, but not with a large secret beside it.
    expect(jobSizeProblem(MAX_JOB_TAR_BYTES - 1024, { CERT: 'x'.repeat(20 * 1024) })).not.toBeNull()
  })

  it('runKubernetesJob refuses it before it makes any Job or Secret', async () => {
    const touched: string[] = []
    const api = new Proxy(
      {},
      { get: (_t, name) => (touched.push(String(name)), () => Promise.reject(new Error('called'))) },
    )
    const conn = {
      batch: api,
      core: api,
      version: api,
      namespace: 'ns',
      context: 'c',
    } as unknown as KubeConnection
    const err = await runKubernetesJob(conn, {
      image: 'img',
      command: ['true'],
      jobInput: Buffer.alloc(MAX_JOB_TAR_BYTES + 1),
      limits: { wallTimeMs: 1000 },
      log: quiet,
    }).catch((e: unknown) => e)
    expect(isAppError(err, 'invalid-input')).toBe(true)
    expect(isWorkerFault(err)).toBe(false)
    expect(touched).toEqual([])
  })

  it('is not retried: the lane fails once with the refusal', async () => {
    let runs = 0
    const tooBig = jobSizeProblem(2 * 1024 * 1024, {})!
    const runner = withRetry(
      () => {
        runs += 1
        return Promise.reject(tooBig)
      },
      () => Promise.reject(new Error('the retry must not run')),
    )
    const input = { lane: { marker: { lane: 1 } }, task: 7, logger: quiet }
    await expect(runner(input as unknown as LaneRunInput)).rejects.toBe(tooBig)
    expect(runs).toBe(1)
  })
})
