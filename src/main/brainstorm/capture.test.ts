import { describe, expect, it } from 'vitest'
import { domainTag, keptCaptures, quoteInAnswer } from './capture'

describe('captures', () => {
  it('keeps a quote found in the answer, loosely (case, spaces, typographic quotes, end punctuation)', () => {
    expect(quoteInAnswer('It’s  OFFLINE first.', "Honestly it's offline first, always")).toBe(true)
    expect(quoteInAnswer('offline first', 'online only')).toBe(false)
    expect(quoteInAnswer('a', 'a b c')).toBe(false) // too short to prove anything
  })

  it('maps domains by tag or name, unknown ones to Core', () => {
    expect(domainTag('[a11y]')).toBe('A11y')
    expect(domainTag('Security / privacy / compliance')).toBe('Sec')
    expect(domainTag('Perform')).toBe('Perf')
    expect(domainTag('gardening')).toBe('Core')
  })

  it('drops invented ideas and duplicates; nothing is kept from an empty answer', () => {
    const captured = [
      { quote: 'dark mode', title: 'Dark mode', domain: 'UX' },
      { quote: 'Dark  mode', title: 'Again', domain: 'UX' },
      { quote: 'blockchain', title: 'Chain', domain: 'Core' },
    ]
    expect(keptCaptures(captured, 'I want dark mode').map((c) => c.title)).toEqual(['Dark mode'])
    expect(keptCaptures(captured, '')).toEqual([])
  })
})
