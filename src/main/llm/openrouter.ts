import { createOpenRouter } from '@openrouter/ai-sdk-provider'
import type { LanguageModel } from 'ai'
import { estimateCost, type BilledUsage, type PriceOverrides } from './pricing'

/** OpenRouter's API; a base URL in the settings (a proxy, a test server) replaces it. */
export const OPENROUTER_BASE_URL = 'https://openrouter.ai/api/v1'

/**
 * A model through OpenRouter's own provider, not the generic chat-completions one, for two things the generic one
 * drops: Anthropic cache breakpoints (`providerOptions.anthropic.cacheControl` on a message or part, as
 * promptCache.ts sets them, or `providerOptions.openrouter.cacheControl`) become `cache_control` in the request,
 * and `usage: { include: true }` makes OpenRouter report what it billed (`usage.cost`), which is then the call's
 * cost. 'strict' sends `stream_options.include_usage`, without which a stream reports no usage at all.
 */
export function openRouterModel(config: {
  model: string
  baseUrl?: string | null
  apiKey?: string | null
}): LanguageModel {
  const provider = createOpenRouter({
    apiKey: config.apiKey ?? '',
    baseURL: config.baseUrl ?? OPENROUTER_BASE_URL,
    compatibility: 'strict',
    appName: 'Ralph Studio',
  })
  return provider.chat(config.model, { usage: { include: true } })
}

/**
 * The cost the provider reported for one call (OpenRouter: `providerMetadata.openrouter.usage.cost`, in USD);
 * undefined when it reported none.
 */
export function reportedCost(providerMetadata: unknown): number | undefined {
  if (!providerMetadata || typeof providerMetadata !== 'object') return undefined
  const openrouter = (providerMetadata as Record<string, unknown>).openrouter
  if (!openrouter || typeof openrouter !== 'object') return undefined
  const usage = (openrouter as Record<string, unknown>).usage
  if (!usage || typeof usage !== 'object') return undefined
  const cost = (usage as Record<string, unknown>).cost
  return typeof cost === 'number' && Number.isFinite(cost) && cost >= 0 ? cost : undefined
}

/** Where a call's cost came from: the provider's bill for it, or the catalog's rates times its tokens. */
export type CostSource = 'provider' | 'catalog'

/**
 * A call's cost: what the provider reported when it did (OpenRouter bills its own rates, routing and discounts,
 * which no catalog knows), else the catalog's estimate. `known` false: no price, so 0 means "not estimated".
 */
export function callCost(
  model: string,
  usage: BilledUsage & { reportedCostUsd?: number },
  prices?: PriceOverrides,
  /** The Ralph provider or engine that made the call (pricing.ts priceFor). */
  provider?: string,
): { usd: number; known: boolean; source: CostSource } {
  if (usage.reportedCostUsd !== undefined)
    return { usd: Math.round(usage.reportedCostUsd * 1e8) / 1e8, known: true, source: 'provider' }
  return { ...estimateCost(model, usage, prices, provider), source: 'catalog' }
}
