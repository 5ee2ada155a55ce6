import { describe, expect, it } from 'vitest'
import { countOf, formatDuration, formatDurationShort, formatSpend, formatWhen, plural } from './format'

describe('format', () => {
  it('counts a noun', () => {
    expect(plural(1, 'task')).toBe('1 task')
    expect(plural(3, 'task')).toBe('3 tasks')
    expect(plural(0, 'match', 'matches')).toBe('0 matches')
    expect(countOf(1, 'items')).toBe('1 item')
    expect(countOf(2, 'items')).toBe('2 items')
  })

  it('writes a wait long and an elapsed time short', () => {
    expect(formatDuration(12_000)).toBe('12 s')
    expect(formatDuration(245_000)).toBe('4 min 05 s')
    expect(formatDuration(7_140_000)).toBe('1 h 59 min')
    expect(formatDurationShort(12_000)).toBe('12s')
    expect(formatDurationShort(245_000)).toBe('4m 05s')
    expect(formatDurationShort(-5)).toBe('0s')
  })

  it('writes a spend without "$0.0000": nothing, cents, four decimals, or "under $0.01"', () => {
    expect(formatSpend(0)).toBe('$0.00')
    expect(formatSpend(2.5)).toBe('$2.50')
    expect(formatSpend(0.0123)).toBe('$0.0123')
    expect(formatSpend(0.00004)).toBe('under $0.01')
  })

  it('writes an exact time for a tooltip, never ISO', () => {
    const text = formatWhen(Date.UTC(2026, 10, 29, 10, 41))
    expect(text).toMatch(/^29 Nov 2026, \d\d:\d\d$/)
  })
})
