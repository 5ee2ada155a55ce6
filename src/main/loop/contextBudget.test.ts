import { describe, expect, it } from 'vitest'
import { ContextBudget, estimateConversation, fitToolResults } from './contextBudget'

describe('fitToolResults', () => {
  it('leaves results that fit untouched', () => {
    expect(fitToolResults(['a', 'b'], 100, 8000)).toEqual([
      { output: 'a', truncated: false },
      { output: 'b', truncated: false },
    ])
  })

  it('keeps small results whole and shares the room among the large ones, each with a note', () => {
    const small = 'ok'
    const large = 'x'.repeat(40_000)
    const fitted = fitToolResults([large, small, large], 2_000, 8_000) // 8,000 characters of room
    expect(fitted[1]).toEqual({ output: small, truncated: false })
    for (const f of [fitted[0]!, fitted[2]!]) {
      expect(f.truncated).toBe(true)
      expect(f.output).toContain('truncated by Ralph')
      expect(f.output).toContain('read_file with offset and limit')
    }
    const total = fitted.reduce((n, f) => n + f.output.length, 0)
    expect(total).toBeLessThanOrEqual(8_000 + 2 * 40) // the notes' digits may differ by a few characters
    expect(total).toBeGreaterThan(7_000)
  })

  it('still shows the head of each result when no room is left', () => {
    const [f] = fitToolResults(['y'.repeat(10_000)], 0, 8_000)
    expect(f!.truncated).toBe(true)
    expect(f!.output.startsWith('y')).toBe(true)
    expect(f!.output.length).toBeLessThan(500)
  })
})

describe('ContextBudget', () => {
  it('fills to 80 % of the window and learns a smaller window from an overflow', () => {
    const budget = new ContextBudget(10_000)
    expect(budget.threshold).toBe(8_000)
    expect(budget.full(7_000)).toBe(false)
    expect(budget.full(7_600)).toBe(true)
    budget.learnOverflow(6_000)
    expect(budget.window).toBe(5_400)
    budget.learnOverflow(50_000) // never grows
    expect(budget.window).toBe(5_400)
  })
})

describe('estimateConversation with images', () => {
  it('counts an image as a fixed size, not its bytes, so a large screenshot does not end the iteration', () => {
    const text = estimateConversation('', [{ role: 'user', content: [{ type: 'text', text: 'look' }] }])
    const small = estimateConversation('', [
      { role: 'user', content: [{ type: 'image', image: 'A'.repeat(100), mediaType: 'image/png' }] },
    ])
    const large = estimateConversation('', [
      { role: 'user', content: [{ type: 'image', image: 'A'.repeat(6_000_000), mediaType: 'image/png' }] },
    ])
    expect(large).toBe(small)
    expect(small - text).toBeGreaterThan(1_500)
    expect(small - text).toBeLessThan(1_700)
  })
})
