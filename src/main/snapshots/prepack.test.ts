import { describe, expect, it } from 'vitest'
import { quotePath } from './prepack'

describe('quotePath', () => {
  it('leaves paths fast-import reads literally alone and C-quotes the rest', () => {
    expect(quotePath('src/with space/ü "x".ts')).toBe('src/with space/ü "x".ts')
    expect(quotePath('"lead.txt')).toBe('"\\"lead.txt"')
    expect(quotePath('a\nb\\c')).toBe('"a\\nb\\\\c"')
  })
})
