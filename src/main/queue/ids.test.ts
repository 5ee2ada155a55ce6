import { describe, expect, it } from 'vitest'
import { ISSUE_ID_PATTERN, TASK_ID_PATTERN } from '../../shared/queue'
import { newId } from './ids'

describe('newId', () => {
  it('makes seed-style ids: a prefix and four random characters', () => {
    expect(newId('t', new Set())).toMatch(TASK_ID_PATTERN)
    expect(newId('i', new Set())).toMatch(ISSUE_ID_PATTERN)
    expect(newId('t', new Set())).toHaveLength(6)
  })

  it('draws again on a collision and grows the suffix when four characters keep colliding', () => {
    const same = () => 'aaaa'.padEnd(4, 'a')
    let calls = 0
    const random = (n: number) => (++calls <= 3 ? 'a'.repeat(n) : 'b'.repeat(n))
    expect(newId('t', new Set(['t-aaaa']), random)).toBe('t-bbbb')
    expect(newId('t', new Set(['t-aaaa']), (n) => same().padEnd(n, 'z'))).toBe('t-aaaaz')
  })
})
