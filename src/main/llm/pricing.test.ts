import { describe, expect, it } from 'vitest'
import { estimateCost, loadPriceOverrides, parsePriceOverrides, priceFor } from './pricing'
import { usageEntry } from './usage'

describe('priceFor', () => {
  it('matches an exact id', () => {
    expect(priceFor('gpt-4o')).toMatchObject({ input: 2.5, output: 10, key: 'gpt-4o', source: 'default' })
    expect(priceFor('gpt-4o-mini')).toMatchObject({ input: 0.15, key: 'gpt-4o-mini' })
  })

  it('matches dated ids by the longest prefix', () => {
    expect(priceFor('gpt-4o-mini-2024-07-18')).toMatchObject({ key: 'gpt-4o-mini', input: 0.15 })
    expect(priceFor('gpt-4o-2024-08-06')).toMatchObject({ key: 'gpt-4o' })
    expect(priceFor('claude-sonnet-4-5-20250929')).toMatchObject({
      key: 'claude-sonnet-4',
      input: 3,
      output: 15,
    })
    expect(priceFor('claude-opus-4-5-20251101')).toMatchObject({ key: 'claude-opus-4-5', input: 5 })
    expect(priceFor('claude-opus-4-1-20250805')).toMatchObject({ key: 'claude-opus-4', input: 15 })
  })

  it('tries router-style ids without the vendor', () => {
    expect(priceFor('openai/gpt-4.1-mini')).toMatchObject({ key: 'gpt-4.1-mini' })
  })

  it('lets overrides win, exact and by prefix', () => {
    const overrides = { 'gpt-4o': { input: 1, output: 2 }, llama3: { input: 0.01, output: 0.02 } }
    expect(priceFor('gpt-4o', overrides)).toMatchObject({ input: 1, output: 2, source: 'override' })
    expect(priceFor('gpt-4o-2024-08-06', overrides)).toMatchObject({ input: 1, source: 'override' })
    expect(priceFor('gpt-4o-mini', overrides)).toMatchObject({ input: 0.15, source: 'default' })
    expect(priceFor('llama3.1:8b', overrides)).toMatchObject({ key: 'llama3', source: 'override' })
  })

  it('knows nothing about local or unknown models', () => {
    expect(priceFor('qwen2.5-coder:7b')).toBeNull()
    expect(priceFor('fake-model')).toBeNull()
  })
})

describe('estimateCost', () => {
  it('computes USD from tokens and per-million prices', () => {
    expect(estimateCost('gpt-4o', { inputTokens: 1_000_000, outputTokens: 100_000 })).toEqual({
      usd: 3.5,
      known: true,
    })
    expect(estimateCost('claude-3-5-haiku-latest', { inputTokens: 2000, outputTokens: 500 })).toEqual({
      usd: 0.0036,
      known: true,
    })
  })

  it('is 0 and unknown for models without a price', () => {
    expect(estimateCost('llama3:8b', { inputTokens: 5000, outputTokens: 5000 })).toEqual({
      usd: 0,
      known: false,
    })
  })

  it('fills usage entries', () => {
    const entry = usageEntry({
      purpose: 'iteration',
      model: { provider: 'openai', model: 'gpt-4o-mini' },
      usage: { inputTokens: 1_000_000, outputTokens: 0 },
      durationMs: 12,
      taskNumber: 3,
      iteration: 2,
    })
    expect(entry).toMatchObject({
      costUsd: 0.15,
      costKnown: true,
      taskNumber: 3,
      iteration: 2,
      provider: 'openai',
    })
  })
})

describe('price overrides from settings', () => {
  it('keeps valid entries and drops malformed ones', () => {
    expect(
      parsePriceOverrides({
        a: { input: 1, output: 2 },
        b: { input: -1, output: 1 },
        c: 'x',
        ' ': { input: 1, output: 1 },
      }),
    ).toEqual({ a: { input: 1, output: 2 } })
    expect(parsePriceOverrides(null)).toEqual({})
    expect(parsePriceOverrides([1])).toEqual({})
  })

  it('reads the llm.prices key', () => {
    const store = new Map<string, unknown>([['llm.prices', { 'my-model': { input: 3, output: 4 } }]])
    const settings = { get: <T>(key: string) => store.get(key) as T | undefined }
    const overrides = loadPriceOverrides(settings)
    expect(estimateCost('my-model', { inputTokens: 1_000_000, outputTokens: 1_000_000 }, overrides)).toEqual({
      usd: 7,
      known: true,
    })
    expect(loadPriceOverrides({ get: () => undefined })).toEqual({})
  })
})
