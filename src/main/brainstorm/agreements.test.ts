import { describe, expect, it } from 'vitest'
import { agreementsSummary, normalizeStatements, normalizeThemes } from './agreements'

describe('agreements', () => {
  it('keeps only idea ids the ledger holds, in one spelling, and maps MoSCoW words', () => {
    const themes = normalizeThemes(
      [
        { name: ' Input ', ideas: ['I001', 'i2', '003', 'I004', 'I002', 'nonsense'], priority: 'Must-have' },
        { name: 'Later', ideas: [], priority: "Won't have", risk: ' scraping breaks ' },
        { name: 'Odd', ideas: ['I1'], priority: 'urgent' },
        { name: '  ', ideas: ['I1'], priority: 'must' },
      ],
      3,
    )
    expect(themes).toEqual([
      { name: 'Input', ideas: ['I001', 'I002', 'I003'], priority: 'must', risk: null },
      { name: 'Later', ideas: [], priority: 'wont', risk: 'scraping breaks' },
      { name: 'Odd', ideas: ['I001'], priority: null, risk: null },
    ])
  })

  it('summarises the board and the statements for the next prompt', () => {
    const text = agreementsSummary(
      [{ name: 'Input', ideas: ['I001'], priority: 'should', risk: 'OCR' }],
      normalizeStatements({
        vision: ' A recipe box. ',
        successTruths: ['Imports 3 recipes in 5 minutes', ' '],
        nonGoals: ['No social feed'],
        constraints: [],
        risks: [],
        openQuestions: [],
      }),
    )
    expect(text).toBe(
      [
        'themes:',
        '- Input [Should-have] I001 · risk: OCR',
        'vision: A recipe box.',
        'success truths:',
        '- Imports 3 recipes in 5 minutes',
        'non-goals:',
        '- No social feed',
      ].join('\n'),
    )
    expect(agreementsSummary([], null)).toBe('')
  })
})
