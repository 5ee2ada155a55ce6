import { describe, expect, it } from 'vitest'
import { candidateIds, catalogContextWindow, catalogEntry, catalogPrices } from './catalog'

describe('the model catalog', () => {
  it('knows the context windows of hosted models, dated and router ids included', () => {
    expect(catalogContextWindow('gpt-5')).toBe(400_000)
    expect(catalogContextWindow('gpt-4.1-mini')).toBe(1_047_576)
    expect(catalogContextWindow('claude-sonnet-4-20250514')).toBe(200_000)
    expect(catalogContextWindow('anthropic/claude-sonnet-4-5')).toBe(200_000)
    expect(catalogContextWindow('openai/gpt-4o-2024-08-06')).toBe(128_000)
    expect(catalogContextWindow('gemini-2.5-pro')).toBeGreaterThanOrEqual(1_000_000)
  })

  it('says nothing of local models, so their windows come from their servers', () => {
    for (const id of ['llama3.1', 'llama3.1:8b', 'qwen2.5-coder:7b', 'gpt-oss:20b', 'gemma3:4b', 'devstral'])
      expect(catalogEntry(id)).toBeNull()
  })

  it('prices every entry with cache rates', () => {
    const prices = Object.entries(catalogPrices())
    expect(prices.length).toBeGreaterThan(50)
    for (const [, p] of prices) {
      expect(p.cacheRead).toBeLessThanOrEqual(p.input)
      expect(p.cacheWrite).toBeGreaterThanOrEqual(p.input)
    }
    // OpenAI models without a cached price in the catalog: half the input price (OpenAI's original rule).
    expect(catalogPrices()['gpt-4-turbo']).toMatchObject({ input: 10, cacheRead: 5, cacheWrite: 10 })
    // A catalog slip (a write cheaper than input) gives way to Anthropic's rule.
    expect(catalogPrices()['claude-3-sonnet']).toMatchObject({ input: 3, cacheRead: 0.3, cacheWrite: 3.75 })
  })

  it('reads router ids without the vendor and OpenRouter’s dotted Anthropic versions', () => {
    expect(candidateIds(' openai/gpt-4o ')).toEqual(['openai/gpt-4o', 'gpt-4o'])
    expect(candidateIds('anthropic/claude-sonnet-4.5')).toEqual([
      'anthropic/claude-sonnet-4.5',
      'claude-sonnet-4-5',
    ])
  })
})
