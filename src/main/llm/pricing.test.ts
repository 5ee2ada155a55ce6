import { describe, expect, it } from 'vitest'
import {
  estimateCost,
  loadPriceOverrides,
  parsePriceOverrides,
  priceFor,
  uncachedInputTokens,
} from './pricing'
import { usageEntry } from './usage'

describe('priceFor', () => {
  it('matches an exact catalog id, with its cache rates', () => {
    expect(priceFor('gpt-4o')).toEqual({
      input: 2.5,
      output: 10,
      cacheRead: 1.25,
      cacheWrite: 2.5,
      key: 'gpt-4o',
      source: 'catalog',
    })
    expect(priceFor('gpt-4o-mini')).toMatchObject({ input: 0.15, key: 'gpt-4o-mini' })
  })

  it('prices the current flagship models, not "unknown"', () => {
    expect(priceFor('gpt-5')).toMatchObject({ input: 1.25, output: 10, cacheRead: 0.13, key: 'gpt-5' })
    expect(priceFor('gpt-5-mini')).toMatchObject({
      input: 0.25,
      output: 2,
      cacheRead: 0.03,
      key: 'gpt-5-mini',
    })
    expect(priceFor('gpt-5.1')).toMatchObject({ input: 1.25, cacheRead: 0.125, key: 'gpt-5.1' })
    expect(priceFor('claude-sonnet-4-5')).toMatchObject({ input: 3, output: 15, key: 'claude-sonnet-4-5' })
    expect(priceFor('claude-haiku-4-5')).toMatchObject({ input: 1, output: 5 })
    expect(priceFor('claude-opus-4-5')).toMatchObject({ input: 5, output: 25 })
    expect(priceFor('gemini-2.5-pro')).toMatchObject({ key: 'gemini-2.5-pro' })
  })

  it('gives Anthropic models the documented cache rates: read 0.1×, 5-minute write 1.25×', () => {
    const sonnet = priceFor('claude-sonnet-4-5')!
    expect(sonnet.cacheRead).toBeCloseTo(0.3, 10)
    expect(sonnet.cacheWrite).toBeCloseTo(3.75, 10)
    // From the catalog's own cache prices.
    expect(priceFor('claude-opus-4-1')).toMatchObject({ input: 15, cacheRead: 1.5, cacheWrite: 18.75 })
  })

  it('matches dated ids and aliases by their family', () => {
    expect(priceFor('gpt-4o-mini-2024-07-18')).toMatchObject({ key: 'gpt-4o-mini', input: 0.15 })
    expect(priceFor('gpt-4o-2024-08-06')).toMatchObject({ key: 'gpt-4o' })
    expect(priceFor('claude-sonnet-4-5-20250929')).toMatchObject({ key: 'claude-sonnet-4-5', input: 3 })
    expect(priceFor('claude-opus-4-5-20251101')).toMatchObject({ key: 'claude-opus-4-5', input: 5 })
    expect(priceFor('claude-opus-4-1-20250805')).toMatchObject({ key: 'claude-opus-4-1-20250805', input: 15 })
    expect(priceFor('claude-sonnet-4-0')).toMatchObject({ key: 'claude-sonnet-4', input: 3 })
    expect(priceFor('claude-3-5-haiku-latest')).toMatchObject({ key: 'claude-3-5-haiku', input: 0.8 })
  })

  it('tries router-style ids without the vendor', () => {
    expect(priceFor('openai/gpt-4.1-mini')).toMatchObject({ key: 'gpt-4.1-mini' })
    expect(priceFor('openai/gpt-4o')).toMatchObject({ key: 'gpt-4o' })
    expect(priceFor('anthropic/claude-sonnet-4-5')).toMatchObject({ key: 'claude-sonnet-4-5' })
    // OpenRouter's spelling of Anthropic versions.
    expect(priceFor('anthropic/claude-sonnet-4.5')).toMatchObject({ key: 'claude-sonnet-4-5' })
  })

  it('lets overrides win, exact and by prefix, with or without cache prices', () => {
    const overrides = {
      'gpt-4o': { input: 1, output: 2 },
      llama3: { input: 0.01, output: 0.02, cacheRead: 0.001 },
    }
    expect(priceFor('gpt-4o', overrides)).toMatchObject({
      input: 1,
      output: 2,
      cacheRead: 1,
      cacheWrite: 1,
      source: 'override',
    })
    expect(priceFor('gpt-4o-2024-08-06', overrides)).toMatchObject({ input: 1, source: 'override' })
    expect(priceFor('gpt-4o-mini', overrides)).toMatchObject({ input: 0.15, source: 'catalog' })
    expect(priceFor('llama3.1:8b', overrides)).toMatchObject({
      key: 'llama3',
      cacheRead: 0.001,
      cacheWrite: 0.01,
      source: 'override',
    })
  })

  it('knows nothing about local or unknown models', () => {
    expect(priceFor('qwen2.5-coder:7b')).toBeNull()
    expect(priceFor('llama3.1')).toBeNull()
    expect(priceFor('gpt-oss:20b')).toBeNull()
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

  it('prices cache reads and writes at their own rates, out of the input they are part of', () => {
    // 10,000 prompt tokens: 1,000 uncached, 8,000 read from the cache, 1,000 written to it; 500 out.
    const usage = { inputTokens: 10_000, cacheReadTokens: 8_000, cacheWriteTokens: 1_000, outputTokens: 500 }
    expect(uncachedInputTokens(usage)).toBe(1_000)
    // Sonnet 4.5: $3 in, $0.30 read, $3.75 write, $15 out.
    expect(estimateCost('claude-sonnet-4-5', usage).usd).toBeCloseTo(
      (1_000 * 3 + 8_000 * 0.3 + 1_000 * 3.75 + 500 * 15) / 1e6,
      8,
    )
    // The case: OpenAI's cached input at its cached rate, not the full input price.
    const cached = { inputTokens: 10_000, cacheReadTokens: 9_000, outputTokens: 100 }
    expect(estimateCost('gpt-5-mini', cached).usd).toBeCloseTo(
      (1_000 * 0.25 + 9_000 * 0.03 + 100 * 2) / 1e6,
      8,
    )
    expect(estimateCost('gpt-5-mini', cached).usd).toBeLessThan(
      estimateCost('gpt-5-mini', { inputTokens: 10_000, outputTokens: 100 }).usd,
    )
    // A server reporting more cached than total input never makes a negative uncached part.
    expect(uncachedInputTokens({ inputTokens: 10, cacheReadTokens: 20, outputTokens: 0 })).toBe(0)
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
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
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
    expect(parsePriceOverrides({ a: { input: 1, output: 2, cacheRead: 0.1, cacheWrite: -1 } })).toEqual({})
    expect(parsePriceOverrides({ a: { input: 1, output: 2, cacheRead: 0.1 } })).toEqual({
      a: { input: 1, output: 2, cacheRead: 0.1 },
    })
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
