import { describe, expect, it } from 'vitest'
import { AppError } from '../../shared/errors'
import { UsageLimitError } from '../llm'
import { CostCapReached, TokenCapReached } from './costCap'
import { LimitNotWaitedError } from './limitWait'
import { shutdownReason } from './shutdown'
import { endingOf, failedStatus, failureOf } from './taskEnd'

const running = () => new AbortController().signal
const aborted = (reason?: unknown) => {
  const controller = new AbortController()
  controller.abort(reason)
  return controller.signal
}

describe('failureOf: the reason an error ends a task with', () => {
  it('names each kind of error by its reason', () => {
    expect(failureOf(new CostCapReached(2, 1), running(), 3)).toMatchObject({ reason: 'cost-cap' })
    expect(failureOf(new TokenCapReached(2000, 1000), running(), 3).message).toContain(
      'The pre-task snapshot task-3-pre is intact',
    )
    expect(failureOf(new AppError('cancelled', 'x'), running(), 3)).toEqual({
      reason: 'stopped',
      message: 'Stopped by the user. The pre-task snapshot is intact.',
    })
    const abortError = Object.assign(new Error('aborted'), { name: 'AbortError' })
    expect(failureOf(abortError, running(), 3).reason).toBe('stopped')
    expect(failureOf(new LimitNotWaitedError('too long'), running(), 3)).toEqual({
      reason: 'usage-limit',
      message: 'too long',
    })
    expect(failureOf(new UsageLimitError(Date.now() + 60_000, 60_000, null), running(), 3).reason).toBe(
      'usage-limit',
    )
    expect(failureOf(new AppError('config', 'No provider.'), running(), 3)).toEqual({
      reason: 'provider',
      message: 'No provider.',
    })
    expect(failureOf(new Error('disk full'), running(), 3)).toEqual({ reason: 'error', message: 'disk full' })
    expect(failureOf('odd', running(), 3)).toEqual({ reason: 'error', message: 'odd' })
  })

  it('counts any error after the task was stopped as the stop, except a reached cap', () => {
    expect(failureOf(new Error('pipe closed'), aborted(), 3).reason).toBe('stopped')
    expect(failureOf(new CostCapReached(2, 1), aborted(), 3).reason).toBe('cost-cap')
  })
})

describe('endingOf: a shutdown is an interruption, not a Stop', () => {
  const stopped = { reason: 'stopped' as const, message: 'Stopped by the user.' }

  it('turns a stop by a shutdown into a resumable interruption that says where it stopped', () => {
    const ending = endingOf(stopped, aborted(shutdownReason('SIGTERM')), 4, 2)
    expect(ending.reason).toBe('interrupted')
    expect(ending.message).toBe(
      'Interrupted: Ralph was shut down (SIGTERM) during iteration 2. Resume continues task 4 from where it ' +
        'stopped (ralph run --resume, or Resume on its card); the pre-task snapshot task-4-pre is intact.',
    )
    expect(endingOf(stopped, aborted(shutdownReason('Ctrl+C')), 4, 0).message).toContain(
      '(Ctrl+C) before its first iteration.',
    )
  })

  it("leaves the user's Stop and every other failure as they are", () => {
    expect(endingOf(stopped, aborted(), 4, 2)).toBe(stopped)
    const failed = { reason: 'error' as const, message: 'boom' }
    expect(endingOf(failed, aborted(shutdownReason('SIGTERM')), 4, 2)).toBe(failed)
  })

  it('shows each reason as its outcome', () => {
    expect(failedStatus('stopped')).toBe('stopped')
    expect(failedStatus('interrupted')).toBe('interrupted')
    expect(failedStatus('stall')).toBe('failed')
    expect(failedStatus('cost-cap')).toBe('failed')
  })
})
