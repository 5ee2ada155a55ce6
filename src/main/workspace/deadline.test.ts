import v8 from 'node:v8'
import vm from 'node:vm'
import { describe, expect, it, vi } from 'vitest'
import { deadline } from './deadline'

/** The collector, forced: on Node 20 a timeout held only by AbortSignal.any is collected and never fires. */
v8.setFlagsFromString('--expose_gc')
const gc = vm.runInNewContext('gc') as () => void

/** Resolves with how the signal ended, forcing a collection every 10 ms meanwhile; 'never' after 3 s. */
async function endUnderGc(signal: AbortSignal): Promise<string> {
  const timer = setInterval(gc, 10)
  try {
    return await Promise.race([
      new Promise<string>((r) =>
        signal.addEventListener('abort', () => r((signal.reason as Error).name), { once: true }),
      ),
      new Promise<string>((r) => setTimeout(() => r('never'), 3000)),
    ])
  } finally {
    clearInterval(timer)
  }
}

describe('deadline', () => {
  it('fires although the collector runs while nothing but the call holds the signal', async () => {
    const limit = deadline(100, new AbortController().signal)
    expect(await endUnderGc(limit.signal)).toBe('TimeoutError')
    expect(limit.timedOut()).toBe(true)
  })

  it('ends with the parent’s reason when a parent aborts first, and is not a timeout then', async () => {
    const parent = new AbortController()
    const limit = deadline(60_000, undefined, parent.signal)
    setTimeout(() => parent.abort(new DOMException('stop', 'AbortError')), 20)
    expect(await endUnderGc(limit.signal)).toBe('AbortError')
    expect(limit.timedOut()).toBe(false)
    const already = deadline(60_000, parent.signal)
    expect(already.signal.aborted).toBe(true)
  })

  it('done() clears it: the signal never aborts afterwards, and the parent keeps no listener', async () => {
    // Fake timers: the limit's time passes for certain, not as a loaded machine's timer allows.
    vi.useFakeTimers()
    try {
      const parent = new AbortController()
      const limit = deadline(50, parent.signal)
      limit.done()
      limit.done()
      parent.abort()
      vi.advanceTimersByTime(500)
      expect(limit.signal.aborted).toBe(false)
      expect(limit.timedOut()).toBe(false)
    } finally {
      vi.useRealTimers()
    }
  })
})
