import { generateText } from 'ai'
import type { ConnectionResult } from '../../shared/settings'
import { localContextAdvice, resolveContextWindow, type ResolvedContextWindow } from './contextWindows'
import { createModel, type ModelConfig } from './createModel'
import { describeProviderError } from './providerErrors'
import { timeoutSignal } from '../workspace'

/** Providers that run on the user's machine and take no API key. */
const keyless = new Set<ModelConfig['provider']>(['openai-compatible', 'ollama'])

/**
 * A real, minimal call: proves the address, the key and the model in one round trip. For a local model it also
 * says the context window the loop will budget (what the server runs) and warns when it is too small for agentic
 * work, with how to raise it.
 */
export async function testConnection(
  config: ModelConfig,
  timeoutMs = 20_000,
  env: NodeJS.ProcessEnv = process.env,
): Promise<ConnectionResult> {
  const started = performance.now()
  if (!keyless.has(config.provider) && !config.apiKey) {
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
      abortSignal: timeoutSignal(timeoutMs),
    })
    const latencyMs = Math.round(performance.now() - started)
    const reply = result.text.trim().slice(0, 40)
    const window = await resolveContextWindow(config, {}, env)
    const local = window.source === 'ollama' || window.source === 'lm-studio'
    return {
      ok: true,
      message:
        `Connected to ${config.model} in ${latencyMs} ms${reply ? ` — it replied "${reply}"` : ''}.` +
        (local ? ` ${describeWindow(window)}` : ''),
      latencyMs,
      contextWindow: window.tokens,
      warning: local ? localContextAdvice(config.model, window) : null,
    }
  } catch (err) {
    return {
      ok: false,
      message: describeProviderError(err, config),
      latencyMs: Math.round(performance.now() - started),
    }
  }
}

function describeWindow(window: ResolvedContextWindow): string {
  const server = window.source === 'ollama' ? 'Ollama' : 'LM Studio'
  return window.source === 'ollama'
    ? `Context window: ${window.tokens} tokens (sent to ${server} as num_ctx).`
    : `Context window: ${window.tokens} tokens (as ${server} reports it).`
}
