import { describe, expect, it } from 'vitest'
import { FIRST_INDEX, nextFirstIndex } from './firstItemIndex'

const list = (...ids: number[]) => ids.map((id) => ({ id }))

describe('firstItemIndex', () => {
  it('stays put when messages arrive at the bottom', () => {
    expect(nextFirstIndex(list(3, 4), 500, list(3, 4, 5, 6))).toBe(500)
  })
  it('counts down by the older messages put in front', () => {
    expect(nextFirstIndex(list(3, 4), 500, list(1, 2, 3, 4))).toBe(498)
  })
  it('counts up by the oldest messages a refetch dropped', () => {
    expect(nextFirstIndex(list(3, 4, 5), 500, list(4, 5, 6))).toBe(501)
  })
  it('starts over for another conversation', () => {
    expect(nextFirstIndex(list(3, 4), 500, list(10, 11))).toBe(FIRST_INDEX - 2)
    expect(nextFirstIndex([], 500, list(1))).toBe(FIRST_INDEX - 1)
  })
})
