import type { V1Job, V1Pod } from '@kubernetes/client-node'
import { expect, it } from 'vitest'
import { endOf, jobEnd } from './kubernetes'

const job = (conditions: { type: string; status: string; reason?: string; message?: string }[]): V1Job => ({
  status: { conditions: conditions as never },
})
const podExited = (exitCode: number, reason: string): V1Pod => ({
  status: { containerStatuses: [{ name: 'worker', state: { terminated: { exitCode, reason } } } as never] },
})

it("a Job's end comes from its True conditions: Complete, Failed, or Failed at its deadline", () => {
  expect(jobEnd(job([]))).toBeNull()
  expect(jobEnd(job([{ type: 'Complete', status: 'False' }]))).toBeNull()
  expect(
    jobEnd(
      job([
        { type: 'SuccessCriteriaMet', status: 'True' },
        { type: 'Complete', status: 'True' },
      ]),
    ),
  ).toEqual({
    ended: 'complete',
    message: '',
  })
  expect(
    jobEnd(job([{ type: 'Failed', status: 'True', reason: 'DeadlineExceeded', message: 'too long' }])),
  ).toEqual({
    ended: 'deadline',
    message: 'too long',
  })
  expect(jobEnd(job([{ type: 'Failed', status: 'True', reason: 'BackoffLimitExceeded' }]))?.ended).toBe(
    'failed',
  )
})

it('each way a Job ends is one sentence', () => {
  expect(endOf({ ended: 'complete', message: '' }, null, 'ns/j', 5000)).toEqual({
    ended: 'complete',
    problem: null,
  })
  expect(endOf({ ended: 'deadline', message: '' }, null, 'ns/j', 5000).problem).toBe(
    'The Kubernetes job ns/j ran past its deadline of 5 s and the cluster stopped it.',
  )
  expect(endOf(null, null, 'ns/j', 5000)).toEqual({
    ended: 'deadline',
    problem:
      'The Kubernetes job ns/j did not end within its deadline of 5 s and the cluster did not stop it: it was deleted.',
  })
  expect(endOf({ ended: 'failed', message: 'x' }, podExited(137, 'OOMKilled'), 'ns/j', 1).problem).toBe(
    'The pod of the Kubernetes job ns/j failed (exit code 137, OOMKilled).',
  )
  expect(
    endOf({ ended: 'failed', message: 'Job has reached the specified backoff limit' }, null, 'ns/j', 1)
      .problem,
  ).toBe('The pod of the Kubernetes job ns/j failed (Job has reached the specified backoff limit).')
})
