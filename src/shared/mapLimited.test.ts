import { describe, expect, it } from 'vitest'
import { mapLimited } from './mapLimited'

describe('mapLimited', () => {
  it('keeps the order of the items whatever order the calls finish in', async () => {
    const delays = [30, 5, 20, 1]
    const out = await mapLimited(
      delays,
      2,
      (ms) => new Promise<number>((r) => setTimeout(() => r(ms * 2), ms)),
    )
    expect(out).toEqual([60, 10, 40, 2])
  })

  it('never runs more than the limit at once', async () => {
    let running = 0
    let most = 0
    await mapLimited([1, 2, 3, 4, 5, 6, 7], 3, async () => {
      running++
      most = Math.max(most, running)
      await new Promise((r) => setTimeout(r, 2))
      running--
    })
    expect(most).toBe(3)
  })

  it('returns [] for no items and runs at least one at a time for a limit below one', async () => {
    expect(await mapLimited([], 4, async (x: number) => x)).toEqual([])
    expect(await mapLimited([1, 2], 0, async (x) => x + 1)).toEqual([2, 3])
  })

  it('rejects when a call rejects', async () => {
    await expect(
      mapLimited([1, 2], 2, async (x) => {
        if (x === 2) throw new Error('boom')
        return x
      }),
    ).rejects.toThrow('boom')
  })
})
