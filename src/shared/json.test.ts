import { describe, expect, it } from 'vitest'
import { parseJsonOr } from './json'

describe('parseJsonOr', () => {
  it('parses JSON and gives the fallback for anything that is not', () => {
    expect(parseJsonOr('{"a":1}', null)).toEqual({ a: 1 })
    expect(parseJsonOr('{a:1}', null)).toBeNull()
    expect(parseJsonOr('', 'none')).toBe('none')
  })
})
