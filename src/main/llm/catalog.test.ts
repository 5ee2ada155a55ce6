import { describe, expect, it } from 'vitest'
import { catalogContextWindow, catalogModel, catalogPrices } from './catalog'
import { candidateIds } from './catalogIds'
import { catalogSeesImages } from './catalogVision'

describe('the model catalog', () => {
  it('knows the context windows of hosted models, dated and router ids included', () => {
    expect(catalogContextWindow('gpt-5')).toBe(400_000)
    expect(catalogContextWindow('gpt-4.1-mini')).toBeGreaterThanOrEqual(1_000_000)
    expect(catalogContextWindow('claude-sonnet-4-20250514')).toBe(200_000)
    expect(catalogContextWindow('anthropic/claude-sonnet-4-5')).toBe(200_000)
    expect(catalogContextWindow('openai/gpt-4o-2024-08-06')).toBe(128_000)
    expect(catalogContextWindow('claude-opus-5-5')).toBe(1_000_000)
  })

  it('says nothing of local models, so their windows come from their servers', () => {
    for (const id of ['llama3.1', 'llama3.1:8b', 'qwen2.5-coder:7b', 'gpt-oss:20b', 'gemma3:4b', 'devstral'])
      expect(catalogModel(id)).toBeNull()
    expect(catalogModel('gpt-4o', 'ollama')).toBeNull()
  })

  it('prices the current models of every hosted vendor with every cache rate', () => {
    const prices = Object.entries(catalogPrices())
    expect(prices.length).toBeGreaterThan(100)
    for (const [, p] of prices) {
      expect(p.cacheRead).toBeLessThanOrEqual(p.input)
      expect(p.cacheWrite1h).toBeGreaterThanOrEqual(p.cacheWrite)
    }
    // OpenAI models without a cached rate bill cached input at the input price (no invented discount).
    expect(catalogPrices()['gpt-4-turbo']).toMatchObject({ input: 10, cacheRead: 10, cacheWrite: 10 })
    expect(catalogPrices()['claude-3-5-sonnet']).toMatchObject({ input: 3, cacheRead: 0.3, cacheWrite: 3.75 })
  })

  it('reads router ids without the vendor and OpenRouter’s dotted Anthropic versions', () => {
    expect(candidateIds(' openai/gpt-4o ')).toEqual(['openai/gpt-4o', 'gpt-4o'])
    expect(candidateIds('anthropic/claude-sonnet-4.5')).toEqual([
      'anthropic/claude-sonnet-4.5',
      'claude-sonnet-4-5',
    ])
  })

  it('knows which hosted models cannot see images', () => {
    expect(catalogSeesImages('o3-mini')).toBe(false)
    expect(catalogSeesImages('gpt-4o-2024-08-06')).toBe(true)
    expect(catalogSeesImages('my-local-model')).toBe(true)
  })
})
