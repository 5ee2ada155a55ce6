import { createAnthropic } from '@ai-sdk/anthropic'
import { createOpenAI } from '@ai-sdk/openai'
import { createOpenAICompatible } from '@ai-sdk/openai-compatible'
import type { LanguageModel } from 'ai'
import type { ProviderId } from '../../shared/settings'

export interface ModelConfig {
  provider: ProviderId
  model: string
  baseUrl?: string | null
  apiKey?: string | null
}

/** The one place that knows how each provider id maps onto the AI SDK. */
export function createModel(config: ModelConfig): LanguageModel {
  const baseURL = config.baseUrl ?? undefined
  switch (config.provider) {
    case 'openai':
      return createOpenAI({ apiKey: config.apiKey ?? '', baseURL })(config.model)
    case 'anthropic':
      return createAnthropic({ apiKey: config.apiKey ?? '', baseURL })(config.model)
    case 'openai-compatible':
      return createOpenAICompatible({
        name: 'openai-compatible',
        baseURL: baseURL ?? 'http://127.0.0.1:11434/v1',
        apiKey: config.apiKey ?? undefined,
        includeUsage: true,
      })(config.model)
  }
}
