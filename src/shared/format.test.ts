import { describe, expect, it } from 'vitest'
import { countOf, formatDuration, formatDurationShort, plural } from './format'

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
})
