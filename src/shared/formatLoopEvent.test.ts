import { describe, expect, it } from 'vitest'
import { cachedPercent, formatCacheUse, formatModelSpend, formatReceipt } from './formatLoopEvent'

const receipt = {
  inputTokens: 10_000,
  outputTokens: 400,
  costUsd: 0.0023,
  calls: 4,
  iterations: 1,
  checkpoints: 0,
  limitWaits: 0,
  limitWaitMs: 0,
}

describe('receipt lines', () => {
  it('say how much of the input the prompt cache served, and what it wrote', () => {
    expect(cachedPercent({ inputTokens: 10_000, cacheReadTokens: 8_400 })).toBe(84)
    expect(formatCacheUse({ inputTokens: 10_000, cacheReadTokens: 8_400, cacheWriteTokens: 1_200 })).toBe(
      'cached 84% (8,400 tokens read, 1,200 written)',
    )
    expect(formatReceipt({ ...receipt, cacheReadTokens: 8_400, cacheWriteTokens: 0 })).toBe(
      '  receipt: 10,000 in / 400 out tokens, cached 84% (8,400 tokens read), 4 calls, ~$0.0023, 1 iteration, 0 checkpoints, 0 limit waits',
    )
  })

  it('say nothing of a cache that served nothing, or of receipts older than cache counts', () => {
    expect(cachedPercent({ inputTokens: 0, cacheReadTokens: 0 })).toBeNull()
    expect(formatCacheUse({ inputTokens: 500, cacheReadTokens: 0, cacheWriteTokens: 0 })).toBeNull()
    expect(formatReceipt(receipt)).toBe(
      '  receipt: 10,000 in / 400 out tokens, 4 calls, ~$0.0023, 1 iteration, 0 checkpoints, 0 limit waits',
    )
    // Anthropic's first call of a task writes the cache and reads nothing yet.
    expect(formatCacheUse({ inputTokens: 5_000, cacheWriteTokens: 4_000 })).toBe(
      'cached 0% (0 tokens read, 4,000 written)',
    )
  })
})

describe('spend per model', () => {
  const model = (name: string, costUsd: number, calls: number, costSource?: 'provider' | 'catalog') => ({
    provider: 'openai',
    model: name,
    calls,
    inputTokens: 100,
    outputTokens: 10,
    costUsd,
    ...(costSource ? { costSource } : {}),
  })

  it('lists each model when a task used more than one', () => {
    expect(formatModelSpend({ models: [model('gpt-5-mini', 0.0004, 2), model('gpt-5', 0.0207, 3)] })).toBe(
      'by model: gpt-5-mini ~$0.0004 (2 calls), gpt-5 ~$0.0207 (3 calls)',
    )
  })

  it('says when the provider reported the cost, and says nothing for one estimated model', () => {
    expect(formatModelSpend({ models: [model('anthropic/claude-sonnet-4.5', 0.05, 1, 'provider')] })).toBe(
      'by model: anthropic/claude-sonnet-4.5 ~$0.0500 (1 call, cost reported by the provider)',
    )
    expect(formatModelSpend({ models: [model('gpt-5', 0.01, 4, 'catalog')] })).toBeNull()
    expect(formatModelSpend({})).toBeNull()
  })
})
