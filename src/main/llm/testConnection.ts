import { generateText } from 'ai'
import type { ConnectionResult } from '../../shared/settings'
import { createModel, type ModelConfig } from './createModel'
import { describeProviderError } from './providerErrors'

/** A real, minimal call: proves the address, the key and the model in one round trip. */
export async function testConnection(config: ModelConfig, timeoutMs = 20_000): Promise<ConnectionResult> {
  const started = performance.now()
  if (config.provider !== 'openai-compatible' && !config.apiKey) {
    return {
      ok: false,
      message: `No API key for ${config.provider}. Enter one in Settings or set RALPH_API_KEY.`,
      latencyMs: 0,
    }
  }
  try {
    const result = await generateText({
      model: createModel(config),
      prompt: 'Reply with the single word OK.',
      maxOutputTokens: 16,
      maxRetries: 0,
      abortSignal: AbortSignal.timeout(timeoutMs),
    })
    const latencyMs = Math.round(performance.now() - started)
    const reply = result.text.trim().slice(0, 40)
    return {
      ok: true,
      message: `Connected to ${config.model} in ${latencyMs} ms${reply ? ` — it replied "${reply}"` : ''}.`,
      latencyMs,
    }
  } catch (err) {
    return {
      ok: false,
      message: describeProviderError(err, config),
      latencyMs: Math.round(performance.now() - started),
    }
  }
}
