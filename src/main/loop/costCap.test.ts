import { describe, expect, it } from 'vitest'
import { formatUsd } from '../../shared/formatLoopEvent'
import {
  CostCap,
  CostCapReached,
  costCapMessage,
  nextCallBound,
  nextCallTokenBound,
  TokenCap,
  TokenCapReached,
  tokenCapMessage,
} from './costCap'

describe('CostCap', () => {
  it('warns once at 75% and stops at 100%, with the queue build budget rule', () => {
    const cap = new CostCap(0.1)
    expect(cap.check(0.05)).toEqual({ warn: null, stop: null })
    expect(cap.check(0.0749)).toEqual({ warn: null, stop: null })
    const warned = cap.check(0.076)
    expect(warned.warn).toBe('Cost cap: $0.076 of $0.10 spent (75% reached); the task stops at the cap.')
    expect(warned.stop).toBeNull()
    // Once only.
    expect(cap.check(0.09)).toEqual({ warn: null, stop: null })
    expect(cap.check(0.1).stop).toBe('Stopped: cost cap of $0.10 reached ($0.10 spent).')
    expect(cap.check(0.2).stop).toBe('Stopped: cost cap of $0.10 reached ($0.20 spent).')
  })

  it('stops without a warning when one call jumps past the cap', () => {
    const cap = new CostCap(1)
    expect(cap.check(1.5)).toEqual({ warn: null, stop: 'Stopped: cost cap of $1.00 reached ($1.50 spent).' })
  })

  it('refuses a cap that is not a positive number', () => {
    for (const bad of [0, -1, Number.NaN, Number.POSITIVE_INFINITY])
      expect(() => new CostCap(bad)).toThrow(/positive number/)
  })

  it('writes dollars with cents, and up to four decimals below a dollar', () => {
    expect([0, 0.1, 0.105, 0.0123, 0.5, 2, 12.345].map(formatUsd)).toEqual([
      '$0.00',
      '$0.10',
      '$0.105',
      '$0.0123',
      '$0.50',
      '$2.00',
      '$12.35',
    ])
    expect(new CostCapReached(0.105, 0.1).message).toBe(costCapMessage(0.105, 0.1))
  })
})

describe('nextCallBound', () => {
  const price = { input: 3, output: 15 } // $ per 1M tokens

  it('gives the answer what the rest of the cap buys after the prompt, at the output price', () => {
    // $0.01 left; the prompt: 1000 tokens at $3/M = $0.003; $0.007 at $15/M buys 466 tokens.
    expect(nextCallBound({ capUsd: 0.05, spentUsd: 0.04, promptTokens: 1000, price })).toEqual({
      maxOutputTokens: 466,
    })
    expect(nextCallBound({ capUsd: 1, spentUsd: 0, promptTokens: 0, price })).toEqual({
      maxOutputTokens: 66_666,
    })
  })

  it('refuses a prompt whose input alone reaches the cap, or leaves not one token of answer', () => {
    const alone = nextCallBound({ capUsd: 0.01, spentUsd: 0.005, promptTokens: 2000, price })
    expect(alone).toEqual({ refused: expect.stringMatching(/prompt alone \(about 2000 tokens, \$0\.006\)/) })
    const crumbs = nextCallBound({ capUsd: 0.01, spentUsd: 0.01 - 0.000_003_01, promptTokens: 1, price })
    expect(crumbs).toEqual({ refused: expect.stringMatching(/single token/) })
  })

  it('sets no bound for a model without a price (a local model) or a free answer', () => {
    expect(nextCallBound({ capUsd: 0.01, spentUsd: 0, promptTokens: 1e9, price: null })).toEqual({
      maxOutputTokens: null,
    })
    expect(
      nextCallBound({ capUsd: 0.01, spentUsd: 0, promptTokens: 10, price: { input: 1, output: 0 } }),
    ).toEqual({
      maxOutputTokens: null,
    })
  })
})

describe('TokenCap', () => {
  it('warns once at 75% and stops at the cap, in tokens', () => {
    const cap = new TokenCap(50_000)
    expect(cap.check(10_000)).toEqual({ warn: null, stop: null })
    expect(cap.check(40_000).warn).toBe(
      'Token cap: 40,000 of 50,000 tokens used (75% reached); the task stops at the cap.',
    )
    expect(cap.check(45_000)).toEqual({ warn: null, stop: null })
    expect(cap.check(51_234).stop).toBe('Stopped: token cap of 50,000 tokens reached (51,234 used).')
    expect(new TokenCapReached(51_234, 50_000).message).toBe(tokenCapMessage(51_234, 50_000))
  })

  it('refuses a cap that is not a whole number of tokens', () => {
    for (const bad of [0, -5, 1.5, Number.NaN]) expect(() => new TokenCap(bad)).toThrow(/whole number/)
  })

  it('bounds the next answer by what is left, and refuses a prompt that would use it all', () => {
    expect(nextCallTokenBound({ capTokens: 10_000, usedTokens: 2_000, promptTokens: 3_000 })).toEqual({
      maxOutputTokens: 5_000,
    })
    expect(nextCallTokenBound({ capTokens: 10_000, usedTokens: 2_000, promptTokens: 8_000 })).toMatchObject({
      refused: expect.stringContaining('8,000 tokens'),
    })
  })
})
