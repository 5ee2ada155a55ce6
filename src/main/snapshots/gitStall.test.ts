import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { GIT_STALL_CHECK_MS, GIT_STALL_RECHECK_MS, watchStall } from './git'

describe('watchStall', () => {
  beforeEach(() => vi.useFakeTimers())
  afterEach(() => vi.useRealTimers())

  it('leaves no timer behind when the call ends while a check is running', async () => {
    let answer: (message: string | null) => void = () => {}
    const check = vi.fn(() => new Promise<string | null>((resolve) => (answer = resolve)))
    const stop = vi.fn()
    const watch = watchStall(check, stop)
    await vi.advanceTimersByTimeAsync(GIT_STALL_CHECK_MS)
    expect(check).toHaveBeenCalledTimes(1)
    // The call ends; then the scan it started answers "nothing blocking".
    watch.end()
    answer(null)
    await vi.runAllTimersAsync()
    expect(vi.getTimerCount()).toBe(0)
    expect(check).toHaveBeenCalledTimes(1)
    expect(stop).not.toHaveBeenCalled()
  })

  it('checks again at every interval while the call runs, and stops it on a blocking file', async () => {
    const answers: (string | null)[] = [null, 'a named pipe is in the way']
    const check = vi.fn(() => Promise.resolve(answers.shift() ?? null))
    const stop = vi.fn()
    const watch = watchStall(check, stop)
    await vi.advanceTimersByTimeAsync(GIT_STALL_CHECK_MS - 1)
    expect(check).not.toHaveBeenCalled()
    await vi.advanceTimersByTimeAsync(1)
    expect(check).toHaveBeenCalledTimes(1)
    await vi.advanceTimersByTimeAsync(GIT_STALL_RECHECK_MS)
    expect(check).toHaveBeenCalledTimes(2)
    expect(stop).toHaveBeenCalledWith('a named pipe is in the way')
    watch.end()
    expect(vi.getTimerCount()).toBe(0)
  })

  it('ends before the first check: nothing runs', async () => {
    const check = vi.fn(() => Promise.resolve(null))
    watchStall(check, vi.fn()).end()
    await vi.runAllTimersAsync()
    expect(check).not.toHaveBeenCalled()
    expect(vi.getTimerCount()).toBe(0)
  })
})
