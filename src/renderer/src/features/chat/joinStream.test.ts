import { describe, expect, it } from 'vitest'
import { joinStream } from './LiveText'

describe('the streamed text read from the core joined with what streamed since', () => {
  it('shows the text once whichever of the two has more of it', () => {
    const all = 'Now checking that the page still lists every drink before marking it done.'
    // Open throughout: the page heard all the core had, and more.
    expect(joinStream(all.slice(0, 20), all)).toBe(all)
    // Reloaded mid-stretch: the core's part, then what streamed after the reload.
    expect(joinStream(all.slice(0, 30), all.slice(30))).toBe(all)
    // Read again later: the core's part covers what the page heard, or overlaps it.
    expect(joinStream(all, all.slice(30, 50))).toBe(all)
    expect(joinStream(all.slice(0, 50), all.slice(30))).toBe(all)
    expect(joinStream('', 'abc')).toBe('abc')
    expect(joinStream('abc', '')).toBe('abc')
  })
})
