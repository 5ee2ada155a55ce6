import { describe, expect, it } from 'vitest'
import {
  estimateCost,
  loadPriceOverrides,
  parsePriceArgs,
  parsePriceOverrides,
  priceFor,
  setPriceOverride,
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
      cacheWrite1h: 2.5,
      key: 'gpt-4o',
      source: 'catalog',
    })
    expect(priceFor('gpt-4o-mini')).toMatchObject({ input: 0.15, key: 'gpt-4o-mini' })
  })

  it('prices cached input exactly, not rounded to cents (the issue: 0.025, not 0.03)', () => {
    expect(priceFor('gpt-5')).toMatchObject({ input: 1.25, output: 10, cacheRead: 0.125, key: 'gpt-5' })
    expect(priceFor('gpt-5-mini')).toMatchObject({
      input: 0.25,
      output: 2,
      cacheRead: 0.025,
      key: 'gpt-5-mini',
    })
    expect(priceFor('gpt-5.1')).toMatchObject({ input: 1.25, cacheRead: 0.125, key: 'gpt-5.1' })
  })

  it("prices this year's models, with their long-context tiers and one-hour writes", () => {
    expect(priceFor('claude-sonnet-4-5')).toMatchObject({
      input: 3,
      output: 15,
      cacheRead: 0.3,
      cacheWrite: 3.75,
      cacheWrite1h: 6,
      longContext: {
        above: 200_000,
        input: 6,
        output: 22.5,
        cacheRead: 0.6,
        cacheWrite: 7.5,
        cacheWrite1h: 12,
      },
    })
    expect(priceFor('claude-haiku-4-5')).toMatchObject({ input: 1, output: 5, cacheWrite1h: 2 })
    expect(priceFor('claude-opus-4-5')).toMatchObject({ input: 5, output: 25, cacheWrite1h: 10 })
    expect(priceFor('claude-opus-5-5')).toMatchObject({ key: 'claude-opus-5-5', source: 'catalog' })
    expect(priceFor('gpt-5.5')).toMatchObject({ key: 'gpt-5.5', longContext: { above: 271_999 } })
    expect(priceFor('gemini-2.5-pro')).toMatchObject({ key: 'gemini-2.5-pro' })
  })

  it("matches dated ids and aliases by the vendor's rules", () => {
    expect(priceFor('gpt-4o-mini-2024-07-18')).toMatchObject({ key: 'gpt-4o-mini', input: 0.15 })
    expect(priceFor('gpt-4o-2024-08-06')).toMatchObject({ key: 'gpt-4o' })
    expect(priceFor('claude-sonnet-4-5-20250929')).toMatchObject({ key: 'claude-sonnet-4-5', input: 3 })
    expect(priceFor('claude-opus-4-5-20251101')).toMatchObject({ key: 'claude-opus-4-5', input: 5 })
    expect(priceFor('claude-opus-4-1-20250805')).toMatchObject({ key: 'claude-opus-4-1', input: 15 })
    expect(priceFor('claude-sonnet-4-0')).toMatchObject({ key: 'claude-sonnet-4-0', input: 3 })
    expect(priceFor('claude-3-5-haiku-latest')).toMatchObject({ input: 0.8, cacheRead: 0.08 })
  })

  it('tries router-style ids without the vendor', () => {
    expect(priceFor('openai/gpt-4.1-mini')).toMatchObject({ key: 'gpt-4.1-mini' })
    expect(priceFor('openai/gpt-4o')).toMatchObject({ key: 'gpt-4o' })
    expect(priceFor('anthropic/claude-sonnet-4-5')).toMatchObject({ key: 'claude-sonnet-4-5' })
    // OpenRouter's spelling of Anthropic versions.
    expect(priceFor('anthropic/claude-sonnet-4.5')).toMatchObject({ key: 'claude-sonnet-4-5' })
    // A vendor the catalog does not price is not guessed from the bare name.
    expect(priceFor('meta-llama/llama-3.1-8b-instruct')).toBeNull()
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
      cacheWrite1h: 1,
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
    // A local provider takes no catalog price, but the user's own still applies.
    expect(priceFor('llama3.1:8b', overrides, 'ollama')).toMatchObject({ key: 'llama3' })
  })

  it('knows nothing about local or unknown models', () => {
    expect(priceFor('qwen2.5-coder:7b')).toBeNull()
    expect(priceFor('llama3.1')).toBeNull()
    expect(priceFor('gpt-oss:20b')).toBeNull()
    expect(priceFor('deepseek-r1:7b')).toBeNull()
    expect(priceFor('fake-model')).toBeNull()
    // A hosted name served by a local server is that server's model: no catalog price.
    expect(priceFor('gpt-4o', {}, 'ollama')).toBeNull()
    expect(priceFor('gpt-oss-120b', {}, 'openai-compatible')).toBeNull()
    expect(priceFor('deepseek-r1-distill-qwen-7b', {}, 'openai-compatible')).toBeNull()
    // A gateway serving a hosted model by its id bills that model's rates.
    expect(priceFor('gpt-4o', {}, 'openai-compatible')).toMatchObject({ key: 'gpt-4o' })
    expect(priceFor('claude-sonnet-4-5', {}, 'claude-code')).toMatchObject({ key: 'claude-sonnet-4-5' })
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
      10,
    )
    // The case: OpenAI's cached input at its exact cached rate.
    const cached = { inputTokens: 10_000, cacheReadTokens: 9_000, outputTokens: 100 }
    expect(estimateCost('gpt-5-mini', cached).usd).toBeCloseTo(
      (1_000 * 0.25 + 9_000 * 0.025 + 100 * 2) / 1e6,
      10,
    )
    // A server reporting more cached than total input never makes a negative uncached part, nor a throw.
    expect(uncachedInputTokens({ inputTokens: 10, cacheReadTokens: 20, outputTokens: 0 })).toBe(0)
    expect(
      estimateCost('gpt-5-mini', { inputTokens: 10, cacheReadTokens: 20, outputTokens: 0 }).usd,
    ).toBeCloseTo((20 * 0.025) / 1e6, 12)
  })

  it('prices one-hour cache writes at their own rate, the rest of the writes at the 5-minute rate', () => {
    // Sonnet 4.5: 5-minute write $3.75, 1-hour write $6 (2× input).
    const usage = {
      inputTokens: 10_000,
      cacheWriteTokens: 5_000,
      cacheWrite1hTokens: 3_000,
      cacheReadTokens: 1_000,
      outputTokens: 1_000,
    }
    const bill = (4_000 * 3 + 1_000 * 0.3 + 2_000 * 3.75 + 3_000 * 6 + 1_000 * 15) / 1e6
    expect(estimateCost('claude-sonnet-4-5', usage).usd).toBeCloseTo(bill, 10)
    // Without the split every write is a 5-minute one: 1-hour writes cost more.
    expect(estimateCost('claude-sonnet-4-5', { ...usage, cacheWrite1hTokens: 0 }).usd).toBeLessThan(bill)
    // OpenAI bills no cache writes: whatever a report says, they are plain input.
    expect(
      estimateCost('gpt-5', {
        inputTokens: 10_000,
        cacheWriteTokens: 4_000,
        cacheWrite1hTokens: 4_000,
        outputTokens: 0,
      }).usd,
    ).toBeCloseTo((10_000 * 1.25) / 1e6, 10)
    // Your own price: 1-hour writes at your cacheWrite1h, else at your write price.
    const own = { m: { input: 1, output: 2, cacheWrite: 1.25, cacheWrite1h: 2 } }
    expect(estimateCost('m', usage, own).usd).toBeCloseTo(
      (4_000 * 1 + 1_000 * 1 + 2_000 * 1.25 + 3_000 * 2 + 1_000 * 2) / 1e6,
      10,
    )
    const { cacheWrite1h: _dropped, ...flat } = own.m
    expect(estimateCost('m', usage, { m: flat }).usd).toBeCloseTo(
      (4_000 * 1 + 1_000 * 1 + 5_000 * 1.25 + 1_000 * 2) / 1e6,
      10,
    )
  })

  it('prices a prompt over the long-context threshold at the long-context rates, every token of the call', () => {
    // Sonnet 4.5 over 200K input tokens (cache reads and writes count): input $6, read $0.60, 5-minute write
    // $7.50, 1-hour write $12, output $22.50.
    const long = {
      inputTokens: 210_000,
      cacheReadTokens: 150_000,
      cacheWriteTokens: 40_000,
      cacheWrite1hTokens: 10_000,
      outputTokens: 2_000,
    }
    expect(estimateCost('claude-sonnet-4-5', long).usd).toBeCloseTo(
      (20_000 * 6 + 150_000 * 0.6 + 30_000 * 7.5 + 10_000 * 12 + 2_000 * 22.5) / 1e6,
      10,
    )
    // At exactly 200K it is still the standard rate.
    const edge = { inputTokens: 200_000, outputTokens: 1_000 }
    expect(estimateCost('claude-sonnet-4-5', edge).usd).toBeCloseTo((200_000 * 3 + 1_000 * 15) / 1e6, 10)
    expect(estimateCost('claude-sonnet-4-5', { ...edge, inputTokens: 200_001 }).usd).toBeCloseTo(
      (200_001 * 6 + 1_000 * 22.5) / 1e6,
      10,
    )
    // A model without a tier stays flat however long the prompt.
    expect(estimateCost('claude-opus-4-5', { inputTokens: 300_000, outputTokens: 0 }).usd).toBeCloseTo(
      1.5,
      10,
    )
    // Your own price has no tier: flat.
    expect(
      estimateCost(
        'claude-sonnet-4-5',
        { inputTokens: 300_000, outputTokens: 0 },
        { 'claude-sonnet-4-5': { input: 3, output: 15 } },
      ).usd,
    ).toBeCloseTo(0.9, 10)
  })

  it('uses the rates in force when the call was made', () => {
    // Claude Sonnet 4.6 lost its long-context premium on 2026-03-13 (genai-prices' dated prices).
    const usage = { inputTokens: 300_000, outputTokens: 0 }
    expect(estimateCost('claude-sonnet-4-6', usage, {}, 'anthropic', new Date('2026-03-01')).usd).toBeCloseTo(
      1.8,
      10,
    )
    expect(estimateCost('claude-sonnet-4-6', usage, {}, 'anthropic', new Date('2026-04-01')).usd).toBeCloseTo(
      0.9,
      10,
    )
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

describe('a price as typed (ralph config set price, the composer)', () => {
  it('takes up to five rates, the fifth the 1-hour cache write, and prices 1-hour writes at it', () => {
    const price = parsePriceArgs(['3', '$15', '0.3', '3.75', '6'])
    expect(price).toEqual({ input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75, cacheWrite1h: 6 })
    const usage = {
      inputTokens: 2_000_000,
      outputTokens: 0,
      cacheWriteTokens: 2_000_000,
      cacheWrite1hTokens: 1_000_000,
    }
    expect(estimateCost('mine', usage, { mine: price }).usd).toBeCloseTo(3.75 + 6, 10)
  })

  it('names the value that is wrong', () => {
    expect(() => parsePriceArgs(['3', '15', '0.3', '3.75', 'six'])).toThrow(
      'CACHE_WRITE_1H must be a price in USD per 1M tokens, 0 or more, not "six"',
    )
    expect(() => parsePriceArgs(['3', '-1'])).toThrow('OUTPUT must be a price')
    expect(() => parsePriceArgs(['3'])).toThrow('at least the input and output prices')
    expect(() => parsePriceArgs(['1', '2', '3', '4', '5', '6'])).toThrow('Too many prices (6)')
  })

  it('writes the same override the price table reads, keeping the others', () => {
    const store = new Map<string, unknown>([['llm.prices', { other: { input: 1, output: 1 } }]])
    const settings = {
      get: <T>(key: string) => store.get(key) as T | undefined,
      set: (key: string, value: unknown) => void store.set(key, value),
    }
    setPriceOverride(settings, ' fake-model ', { input: 1, output: 2 })
    expect(loadPriceOverrides(settings)).toEqual({
      other: { input: 1, output: 1 },
      'fake-model': { input: 1, output: 2 },
    })
    expect(priceFor('fake-model', loadPriceOverrides(settings))).toMatchObject({
      source: 'override',
      input: 1,
    })
  })
})
