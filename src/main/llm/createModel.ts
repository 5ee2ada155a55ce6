import { createAnthropic } from '@ai-sdk/anthropic'
import { createOpenAI } from '@ai-sdk/openai'
import { createOpenAICompatible } from '@ai-sdk/openai-compatible'
import { wrapLanguageModel, type LanguageModel } from 'ai'
import { createOllama } from 'ollama-ai-provider-v2'
import type { ProviderId } from '../../shared/settings'
import { migrateLegacyOllama, ollamaOrigin, resolveOllamaWindow } from './ollamaContext'
import { openRouterModel } from './openrouter'

export interface ModelConfig {
  provider: ProviderId
  model: string
  baseUrl?: string | null
  apiKey?: string | null
  /** The user's maximum context for local models (`llm.localContextMax`, RALPH_LOCAL_CONTEXT_MAX); null: none. */
  localContextMax?: number | null
}

/** The one place that knows how each provider id maps onto the AI SDK. */
export function createModel(input: ModelConfig): LanguageModel {
  const config = migrateLegacyOllama(input)
  const baseURL = config.baseUrl ?? undefined
  switch (config.provider) {
    case 'openai':
      return createOpenAI({ apiKey: config.apiKey ?? '', baseURL })(config.model)
    case 'anthropic':
      return createAnthropic({ apiKey: config.apiKey ?? '', baseURL })(config.model)
    case 'ollama':
      return ollamaModel(config)
    case 'openrouter':
      return openRouterModel(config)
    case 'openai-compatible':
      return createOpenAICompatible({
        name: 'openai-compatible',
        baseURL: baseURL ?? 'http://127.0.0.1:1234/v1',
        apiKey: config.apiKey ?? undefined,
        includeUsage: true,
      })(config.model)
  }
}

/**
 * Ollama's native `/api/chat`, with `options.num_ctx` on every call: without it the server runs its default
 * (4,096) and silently cuts the prompt from the front. The window is the one the loop budgets
 * (resolveContextWindow asks the same remembered function), so a call never carries more than the model runs.
 * The output cap and temperature go into `options` too (num_predict, temperature): the provider package sends
 * them at the top level of the body, where Ollama ignores them.
 */
function ollamaModel(config: ModelConfig): LanguageModel {
  const headers: Record<string, string> = config.apiKey ? { authorization: `Bearer ${config.apiKey}` } : {}
  const model = createOllama({ baseURL: `${ollamaOrigin(config.baseUrl)}/api`, headers })(config.model)
  return wrapLanguageModel({
    model,
    middleware: {
      specificationVersion: 'v3',
      transformParams: async ({ params }) => {
        const window = await resolveOllamaWindow(config.baseUrl, config.model, config.localContextMax ?? null)
        const own = (params.providerOptions?.ollama ?? {}) as { options?: Record<string, unknown> }
        return {
          ...params,
          providerOptions: {
            ...params.providerOptions,
            ollama: {
              ...own,
              options: {
                ...own.options,
                num_ctx: window.tokens,
                ...(params.maxOutputTokens === undefined ? {} : { num_predict: params.maxOutputTokens }),
                ...(params.temperature === undefined ? {} : { temperature: params.temperature }),
              },
            },
          },
        }
      },
    },
  })
}
