import { AppError } from '../../shared/errors'
import type { ProviderId } from '../../shared/settings'
import { ollamaOrigin } from './ollamaContext'
import { OPENROUTER_BASE_URL } from './openrouter'
import { timeoutSignal } from '../workspace'

export interface ListModelsInput {
  provider: ProviderId
  baseUrl: string | null
  apiKey: string | null
}

type Listing = { data?: { id?: unknown }[]; models?: { name?: unknown }[] }

/** Where the provider lists its models: Ollama's `GET /api/tags`, else the OpenAI-compatible `GET {base}/models`. */
export function modelsUrl(input: ListModelsInput): string {
  const base = input.baseUrl?.trim().replace(/\/+$/, '') ?? ''
  switch (input.provider) {
    case 'ollama':
      return `${ollamaOrigin(input.baseUrl)}/api/tags`
    case 'openrouter':
      return `${base || OPENROUTER_BASE_URL}/models`
    case 'openai':
      return `${base || 'https://api.openai.com/v1'}/models`
    case 'openai-compatible':
      if (!base)
        throw new AppError(
          'invalid-input',
          'Enter the server’s base URL first, e.g. http://127.0.0.1:1234/v1.',
        )
      return `${base}/models`
    case 'anthropic':
      throw new AppError('invalid-input', 'Anthropic’s models are not listed here: type the model’s name.')
  }
}

/**
 * The model names a server offers, as it lists them (once each). Says plainly when it does not answer, refuses
 * the key, or answers with something that is not a model list.
 */
export async function listModels(input: ListModelsInput, timeoutMs = 8000): Promise<string[]> {
  const url = modelsUrl(input)
  let res: Response
  try {
    res = await fetch(url, {
      headers: input.apiKey ? { authorization: `Bearer ${input.apiKey}` } : {},
      signal: timeoutSignal(timeoutMs),
    })
  } catch (err) {
    throw new AppError(
      'provider',
      `Nothing answered at ${url}. Is the server running at that address?`,
      undefined,
      {
        cause: err,
      },
    )
  }
  if (res.status === 401 || res.status === 403)
    throw new AppError('provider', `The server at ${url} refused the API key (${res.status}).`)
  if (!res.ok)
    throw new AppError('provider', `The server at ${url} did not list its models (HTTP ${res.status}).`)
  let body: Listing
  try {
    body = (await res.json()) as Listing
  } catch (err) {
    throw new AppError(
      'provider',
      `The server at ${url} answered with something that is not a model list.`,
      undefined,
      {
        cause: err,
      },
    )
  }
  const ids =
    input.provider === 'ollama' ? (body.models ?? []).map((m) => m.name) : (body.data ?? []).map((m) => m.id)
  return [...new Set(ids.filter((id): id is string => typeof id === 'string' && id.length > 0))]
}
