import { describe, expect, it } from 'vitest'
import { batchEnd } from './iteration'

describe('batchEnd', () => {
  it('ends on the tool budget first, then on completion, else goes on', () => {
    expect(batchEnd(true, true)).toBe('budget')
    expect(batchEnd(true, false)).toBe('budget')
    expect(batchEnd(false, true)).toBe('complete')
    expect(batchEnd(false, false)).toBeNull()
  })
})
