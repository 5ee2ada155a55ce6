import { z } from 'zod'

export const providerIds = ['openai', 'anthropic', 'ollama', 'openrouter', 'openai-compatible'] as const
export type ProviderId = (typeof providerIds)[number]

export const providerLabels: Record<ProviderId, string> = {
  openai: 'OpenAI',
  anthropic: 'Anthropic',
  ollama: 'Ollama (native API)',
  openrouter: 'OpenRouter',
  'openai-compatible': 'OpenAI-compatible (LM Studio, vLLM, llama.cpp …)',
}

const httpUrl = z
  .string()
  .trim()
  .refine((value) => {
    if (!URL.canParse(value)) return false
    const url = new URL(value)
    return url.protocol === 'http:' || url.protocol === 'https:'
  }, 'Base URL must be a full http:// or https:// address, e.g. http://127.0.0.1:11434 for Ollama')

export const providerIdSchema = z.enum(providerIds, {
  error: (issue) => `Unknown provider ${JSON.stringify(issue.input)}. Use one of: ${providerIds.join(', ')}.`,
})

/** The provider settings a user edits. Validated as a whole so nothing is saved half-way. */
export const providerSettingsSchema = z
  .object({
    provider: providerIdSchema,
    model: z.string().trim().min(1, 'Model must not be empty: name the model to use, e.g. gpt-4o-mini.'),
    baseUrl: httpUrl.nullable().optional(),
    /** The most context a local model gets, in tokens (Ollama's num_ctx); null: none set. Absent: unchanged. */
    localContextMax: z
      .number('Max context for local models must be a number of tokens, e.g. 32768.')
      .int('Max context for local models must be a whole number of tokens, e.g. 32768.')
      .min(1024, 'Max context for local models must be at least 1024 tokens, e.g. 32768.')
      .max(100_000_000, 'Max context for local models is too large.')
      .nullable()
      .optional(),
    /**
     * The fast model for side jobs (task parsing, checkpoints, verification verdicts): "MODEL" on the main
     * provider, or "PROVIDER:MODEL". null: none (the main model does them). Absent: unchanged.
     */
    fastModel: z.string().trim().max(300, 'The fast model name is too long.').nullable().optional(),
    /** The fast model's base URL when it is on another server; null: the main one's (same provider) or the default. */
    fastBaseUrl: httpUrl.nullable().optional(),
  })
  .superRefine((value, ctx) => {
    if (value.provider === 'openai-compatible' && !value.baseUrl) {
      ctx.addIssue({
        code: 'custom',
        path: ['baseUrl'],
        message:
          'An openai-compatible provider needs a base URL, e.g. http://127.0.0.1:1234/v1 for LM Studio.',
      })
    }
  })
export type ProviderSettings = z.infer<typeof providerSettingsSchema>

/** Where an API key is held: shown in the UI so the user knows which store to change. */
export const secretBackends = ['safe-storage', 'file', 'env', 'none'] as const
export type SecretBackend = (typeof secretBackends)[number]

export const apiKeyStatusSchema = z.object({
  present: z.boolean(),
  backend: z.enum(secretBackends),
  /** A masked hint like "…a1b2", never the key. */
  hint: z.string().nullable(),
  /** The environment variable that supplies it, when backend is 'env'. */
  envVar: z.string().nullable(),
})
export type ApiKeyStatus = z.infer<typeof apiKeyStatusSchema>

/** The provider settings an environment variable can override, as the form names them. */
export const overridableFields = [
  'provider',
  'model',
  'baseUrl',
  'localContextMax',
  'fastModel',
  'fastBaseUrl',
  'apiKey',
] as const
export type OverridableField = (typeof overridableFields)[number]

/** One setting an environment variable overrides: what calls use, where it comes from, and what it hides. */
export const envOverrideSchema = z.object({
  field: z.enum(overridableFields),
  /** The variable that supplies it, e.g. RALPH_MODEL or ANTHROPIC_API_KEY. */
  envVar: z.string(),
  /** The value calls use, as text (an API key masked: "…a1b2"). */
  value: z.string(),
  /** The stored value it overrides (a key masked); null when nothing is stored for it. */
  stored: z.string().nullable(),
})
export type EnvOverride = z.infer<typeof envOverrideSchema>

export const providerStateSchema = z.object({
  settings: z
    .object({ provider: providerIdSchema, model: z.string(), baseUrl: z.string().nullable() })
    .nullable(),
  /** Settings after RALPH_* environment overrides; this is what calls use. */
  effective: z
    .object({ provider: providerIdSchema, model: z.string(), baseUrl: z.string().nullable() })
    .nullable(),
  overriddenByEnv: z.array(z.string()),
  apiKey: apiKeyStatusSchema,
  /** The stored maximum context for local models (tokens); null when none is set. */
  localContextMax: z.number().nullable().optional(),
  /** The stored fast model ("MODEL" or "PROVIDER:MODEL") and its base URL; null when none is set. */
  fastModel: z.string().nullable().optional(),
  fastBaseUrl: z.string().nullable().optional(),
  /** Each setting the environment overrides, with its effective value and source (Settings shows them per field). */
  envOverrides: z.array(envOverrideSchema).optional(),
  /** The fast model calls use (after RALPH_FAST_MODEL / RALPH_FAST_BASE_URL); null: the main model. */
  effectiveFastModel: z
    .object({ provider: providerIdSchema, model: z.string(), baseUrl: z.string().nullable() })
    .nullable()
    .optional(),
})
export type ProviderState = z.infer<typeof providerStateSchema>

export const connectionResultSchema = z.object({
  ok: z.boolean(),
  message: z.string(),
  latencyMs: z.number(),
  /** The context window the loop budgets for this model (for a local model: what its server runs), when known. */
  contextWindow: z.number().nullable().optional(),
  /** A local model's window too small for agentic work, with how to raise it; null when it is fine. */
  warning: z.string().nullable().optional(),
})
export type ConnectionResult = z.infer<typeof connectionResultSchema>

export const localServerSchema = z.object({
  name: z.string(),
  /** The provider id to use it with (Ollama's native API; others speak chat completions). */
  provider: providerIdSchema.optional(),
  baseUrl: z.string(),
  models: z.array(z.string()),
})
export type LocalServer = z.infer<typeof localServerSchema>
