import { describe, expect, it } from 'vitest'
import { callCost, reportedCost } from './openrouter'
import { estimateCost } from './pricing'

describe('reportedCost', () => {
  it('reads OpenRouter’s usage.cost from the provider metadata', () => {
    expect(reportedCost({ openrouter: { usage: { cost: 0.00123, promptTokens: 10 } } })).toBe(0.00123)
    expect(reportedCost({ openrouter: { usage: { cost: 0 } } })).toBe(0)
  })

  it('is undefined when there is no usable cost', () => {
    for (const m of [undefined, null, {}, { openrouter: {} }, { openrouter: { usage: {} } }])
      expect(reportedCost(m)).toBeUndefined()
    expect(reportedCost({ openrouter: { usage: { cost: -1 } } })).toBeUndefined()
    expect(reportedCost({ openrouter: { usage: { cost: '0.1' } } })).toBeUndefined()
    expect(reportedCost({ anthropic: { usage: { cost: 1 } } })).toBeUndefined()
  })
})

describe('callCost', () => {
  const usage = { inputTokens: 10_000, outputTokens: 500 }
  it('takes the reported cost over the catalog, marked as the provider’s', () => {
    expect(callCost('gpt-4o-mini', { ...usage, reportedCostUsd: 0.0421 })).toEqual({
      usd: 0.0421,
      known: true,
      source: 'provider',
    })
  })

  it('falls back to the catalog estimate, marked so', () => {
    expect(callCost('gpt-4o-mini', usage)).toEqual({
      ...estimateCost('gpt-4o-mini', usage),
      source: 'catalog',
    })
    expect(callCost('no-such-local-model', usage)).toEqual({ usd: 0, known: false, source: 'catalog' })
  })
})
