import { describe, expect, it } from 'vitest'
import { parseCriteria } from './criteria'

describe('parseCriteria', () => {
  it('splits a seed 001 string into one criterion per line, numbered in order', () => {
    expect(parseCriteria('DET: npm test passes\n\n- LLM: errors are readable\nno panic')).toEqual([
      { ref: 'AC1', kind: 'DET', text: 'npm test passes', tagged: true },
      { ref: 'AC2', kind: 'LLM', text: 'errors are readable', tagged: true },
      { ref: 'AC3', kind: 'LLM', text: 'no panic', tagged: false },
    ])
  })

  it('takes an array item per criterion and reads tags in any case', () => {
    expect(parseCriteria(['det:  lint is clean', 'Llm : docs updated'])).toEqual([
      { ref: 'AC1', kind: 'DET', text: 'lint is clean', tagged: true },
      { ref: 'AC2', kind: 'LLM', text: 'docs updated', tagged: true },
    ])
    expect(parseCriteria(undefined)).toEqual([])
  })

  it('does not mistake a word starting with a tag for the tag', () => {
    expect(parseCriteria('DETERMINISTIC: output')[0]).toMatchObject({ kind: 'LLM', tagged: false })
  })
})
