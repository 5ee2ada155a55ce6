import { AppError } from '../../shared/errors'
import { providerIds, providerSettingsSchema, type ProviderId } from '../../shared/settings'
import { describeIssues } from '../../shared/describeIssues'

/** The fast model for side jobs (`ralph config set fastModel …`): "MODEL" or "PROVIDER:MODEL". */
export const FAST_MODEL_KEY = 'llm.fastModel'
/** Its base URL when it runs on another server than the main model. */
export const FAST_BASE_URL_KEY = 'llm.fastBaseUrl'

export interface FastModelChoice {
  provider: ProviderId
  model: string
  baseUrl: string | null
}

/**
 * Reads a fast-model setting against the main model: "gpt-4o-mini" is that model on the main provider (its base
 * URL too), "openrouter:anthropic/claude-haiku-4.5" names the provider. Only a known provider id counts as a
 * prefix, so an Ollama tag like "llama3.1:8b" stays a model name. `baseUrl` (the fast model's own) wins; without
 * it a fast model on the main provider shares the main base URL and one on another provider gets that provider's
 * default. Throws a config error naming the source when the result is not a usable model.
 */
export function resolveFastModel(
  spec: string,
  main: { provider: ProviderId; baseUrl: string | null },
  baseUrl: string | null,
  source: string,
): FastModelChoice {
  const text = spec.trim()
  const colon = text.indexOf(':')
  const prefix = colon > 0 ? text.slice(0, colon) : ''
  const named = (providerIds as readonly string[]).includes(prefix) ? (prefix as ProviderId) : null
  const provider = named ?? main.provider
  const model = named ? text.slice(colon + 1).trim() : text
  const candidate = {
    provider,
    model,
    baseUrl: baseUrl ?? (provider === main.provider ? main.baseUrl : null),
  }
  const parsed = providerSettingsSchema.safeParse(candidate)
  if (!parsed.success) {
    throw new AppError(
      'config',
      `The fast model "${text}" (from ${source}) is not usable: ${describeIssues(parsed.error.issues)} Give "MODEL" for the main provider, or "PROVIDER:MODEL" (providers: ${providerIds.join(', ')}).`,
    )
  }
  return { provider: parsed.data.provider, model: parsed.data.model, baseUrl: parsed.data.baseUrl ?? null }
}
