import { AppError, isAppError } from '../../shared/errors'
import {
  providerIdSchema,
  providerSettingsSchema,
  type EnvOverride,
  type ProviderSettings,
  type ProviderState,
} from '../../shared/settings'
import { describeIssues } from '../../shared/describeIssues'
import type { ApiKeys } from '../secrets'
import type { SettingsRepo } from '../store'
import { parseContextTokens } from './contextWindows'
import type { ModelConfig } from './createModel'
import { FAST_BASE_URL_KEY, FAST_MODEL_KEY, resolveFastModel, type FastModelChoice } from './fastModel'
import { migrateLegacyOllama } from './ollamaContext'

const KEYS = { provider: 'llm.provider', model: 'llm.model', baseUrl: 'llm.baseUrl' } as const
/** The user's maximum context for local models (tokens); see ollamaWindow. */
export const LOCAL_CONTEXT_MAX_KEY = 'llm.localContextMax'

export type ProviderField = 'provider' | 'model' | 'baseUrl'

const fieldSchemas = {
  provider: providerIdSchema,
  model: providerSettingsSchema.shape.model,
  baseUrl: providerSettingsSchema.shape.baseUrl,
}

type Plain = { provider: ProviderSettings['provider']; model: string; baseUrl: string | null }

/** Provider settings: stored in SQLite, overridable by RALPH_* variables (DESIGN.md §9), keys in the vault. */
export class ProviderSettingsService {
  constructor(
    private readonly settings: SettingsRepo,
    private readonly apiKeys: ApiKeys,
    private readonly env: NodeJS.ProcessEnv,
  ) {}

  /** The provider alone, even before a model is set (API keys are stored per provider). */
  currentProvider(): ProviderSettings['provider'] | null {
    const parsed = providerIdSchema.safeParse(
      this.env.RALPH_PROVIDER || this.settings.get<string>(KEYS.provider),
    )
    return parsed.success ? parsed.data : null
  }

  stored(): Plain | null {
    const provider = this.settings.get<string>(KEYS.provider)
    const model = this.settings.get<string>(KEYS.model)
    if (!provider || model === undefined) return null
    const parsed = providerIdSchema.safeParse(provider)
    if (!parsed.success) return null
    const saved = {
      provider: parsed.data,
      model,
      baseUrl: this.settings.get<string | null>(KEYS.baseUrl) ?? null,
    }
    const migrated = migrateLegacyOllama(saved)
    if (migrated !== saved) {
      // Ollama saved as openai-compatible at :11434/v1 ran at 4,096 tokens; from now on it is the native provider,
      // written back so Settings and `ralph config get` show what calls use.
      this.settings.setMany({ [KEYS.provider]: migrated.provider, [KEYS.baseUrl]: migrated.baseUrl })
    }
    return migrated
  }

  /** Stored settings with environment overrides applied; validated so a bad variable is reported clearly. */
  effective(): { value: Plain | null; overriddenByEnv: string[] } {
    const base = this.stored()
    const overridden: string[] = []
    const pick = (name: string, fallback: string | null | undefined) => {
      const value = this.env[name]
      if (value !== undefined && value !== '') {
        overridden.push(name)
        return value
      }
      return fallback ?? undefined
    }
    const provider = pick('RALPH_PROVIDER', base?.provider)
    const model = pick('RALPH_MODEL', base?.model)
    const baseUrl = pick('RALPH_BASE_URL', base?.baseUrl)
    if (!provider && !model) return { value: null, overriddenByEnv: overridden }
    const parsed = providerSettingsSchema.safeParse(
      migrateLegacyOllama({
        provider: provider as ProviderSettings['provider'],
        model,
        baseUrl: baseUrl ?? null,
      }),
    )
    if (!parsed.success) {
      const source = overridden.length ? ` (from ${overridden.join(', ')})` : ''
      throw new AppError(
        'config',
        `The provider configuration is invalid${source}: ${describeIssues(parsed.error.issues)}`,
      )
    }
    return { value: { ...parsed.data, baseUrl: parsed.data.baseUrl ?? null }, overriddenByEnv: overridden }
  }

  state(): ProviderState {
    const stored = this.stored()
    let effective: Plain | null = null
    let overriddenByEnv: string[] = []
    try {
      ;({ value: effective, overriddenByEnv } = this.effective())
    } catch (err) {
      // An invalid configuration is part of the state Settings shows (its error comes from `effective()`).
      if (!isAppError(err, 'config')) throw err
      effective = null
    }
    const provider = effective?.provider ?? this.currentProvider() ?? 'openai-compatible'
    if (this.env.RALPH_LOCAL_CONTEXT_MAX) overriddenByEnv = [...overriddenByEnv, 'RALPH_LOCAL_CONTEXT_MAX']
    for (const name of ['RALPH_FAST_MODEL', 'RALPH_FAST_BASE_URL'])
      if (this.env[name]) overriddenByEnv = [...overriddenByEnv, name]
    const localContextMax = this.settings.get<unknown>(LOCAL_CONTEXT_MAX_KEY)
    let effectiveFastModel: FastModelChoice | null = null
    try {
      effectiveFastModel = effective ? this.fastModel(effective) : null
    } catch (err) {
      if (!isAppError(err, 'config')) throw err
      effectiveFastModel = null
    }
    const apiKey = this.apiKeys.status(provider)
    return {
      settings: stored,
      effective,
      overriddenByEnv,
      envOverrides: this.envOverrides(stored, apiKey, provider, effectiveFastModel),
      apiKey,
      localContextMax: typeof localContextMax === 'number' ? localContextMax : null,
      fastModel: this.storedString(FAST_MODEL_KEY),
      fastBaseUrl: this.storedString(FAST_BASE_URL_KEY),
      effectiveFastModel,
    }
  }

  /** Each setting a set environment variable overrides: the value calls use, its variable, the stored one. */
  private envOverrides(
    stored: Plain | null,
    apiKey: ProviderState['apiKey'],
    provider: ProviderSettings['provider'],
    fast: FastModelChoice | null,
  ): EnvOverride[] {
    const out: EnvOverride[] = []
    const add = (field: EnvOverride['field'], envVar: string, storedValue: unknown) => {
      const value = this.env[envVar]
      if (value === undefined || value === '') return
      const kept =
        storedValue === undefined || storedValue === null || storedValue === '' ? null : storedValue
      out.push({ field, envVar, value, stored: kept === null ? null : String(kept) })
    }
    add('provider', 'RALPH_PROVIDER', stored?.provider)
    add('model', 'RALPH_MODEL', stored?.model)
    add('baseUrl', 'RALPH_BASE_URL', stored?.baseUrl)
    add('localContextMax', 'RALPH_LOCAL_CONTEXT_MAX', this.settings.get<unknown>(LOCAL_CONTEXT_MAX_KEY))
    add('fastModel', 'RALPH_FAST_MODEL', this.storedString(FAST_MODEL_KEY))
    add('fastBaseUrl', 'RALPH_FAST_BASE_URL', this.storedString(FAST_BASE_URL_KEY))
    // The fast model as calls resolve it ("openrouter:x" reads better as what it became).
    const fastModel = out.find((o) => o.field === 'fastModel')
    if (fastModel && fast) fastModel.value = `${fast.provider}:${fast.model}`
    if (apiKey.backend === 'env' && apiKey.envVar)
      out.push({
        field: 'apiKey',
        envVar: apiKey.envVar,
        value: apiKey.hint ?? '…',
        stored: this.apiKeys.storedHint(provider),
      })
    return out
  }

  /**
   * Validates everything first, then writes the key and the settings; if the settings write fails the key is put
   * back, so nothing is ever saved half-way.
   */
  save(input: unknown, apiKey?: string | null): ProviderState {
    const parsed = providerSettingsSchema.safeParse(input)
    if (!parsed.success) throw new AppError('config', describeIssues(parsed.error.issues))
    const next = parsed.data
    if (next.fastModel?.trim()) {
      const fastBaseUrl =
        next.fastBaseUrl !== undefined ? next.fastBaseUrl : this.storedString(FAST_BASE_URL_KEY)
      resolveFastModel(
        next.fastModel,
        { provider: next.provider, baseUrl: next.baseUrl ?? null },
        fastBaseUrl,
        'Fast model',
      )
    }
    const previousKey = apiKey === undefined ? undefined : this.apiKeys.resolveStored(next.provider)
    if (apiKey === null) this.apiKeys.delete(next.provider)
    else if (apiKey !== undefined) this.apiKeys.set(next.provider, apiKey)
    try {
      this.settings.setMany({
        [KEYS.provider]: next.provider,
        [KEYS.model]: next.model,
        [KEYS.baseUrl]: next.baseUrl ?? null,
        // null removes it (setMany deletes an undefined value); absent leaves it as it is.
        ...(next.localContextMax !== undefined
          ? { [LOCAL_CONTEXT_MAX_KEY]: next.localContextMax ?? undefined }
          : {}),
        ...(next.fastModel !== undefined ? { [FAST_MODEL_KEY]: next.fastModel || undefined } : {}),
        ...(next.fastBaseUrl !== undefined ? { [FAST_BASE_URL_KEY]: next.fastBaseUrl ?? undefined } : {}),
      })
    } catch (err) {
      if (previousKey !== undefined) {
        if (previousKey === null) this.apiKeys.delete(next.provider)
        else this.apiKeys.set(next.provider, previousKey)
      }
      throw err
    }
    return this.state()
  }

  /** Sets one field (the CLI's `config set`); the value is checked on its own, the whole at use time. */
  setField(field: ProviderField, value: string | null): void {
    if (value === null && field !== 'baseUrl')
      throw new AppError('config', `${field} cannot be removed, only changed.`)
    const parsed = fieldSchemas[field].safeParse(value)
    if (!parsed.success) throw new AppError('config', describeIssues(parsed.error.issues))
    this.settings.set(KEYS[field], parsed.data ?? null)
  }

  /**
   * The user's maximum context for local models: RALPH_LOCAL_CONTEXT_MAX, else `candidate` when given (a form not
   * saved yet), else the setting; null when unset.
   */
  localContextMax(candidate?: number | null): number | null {
    const fromEnv = this.env.RALPH_LOCAL_CONTEXT_MAX
    if (fromEnv !== undefined && fromEnv !== '') {
      const tokens = parseContextTokens(fromEnv)
      if (tokens === null)
        throw new AppError(
          'config',
          `RALPH_LOCAL_CONTEXT_MAX must be a number of tokens, at least 1024 (e.g. 32768 or 32k), got "${fromEnv}".`,
        )
      return tokens
    }
    if (candidate !== undefined) return candidate
    const stored = this.settings.get<unknown>(LOCAL_CONTEXT_MAX_KEY)
    return typeof stored === 'number' ? stored : null
  }

  /** Sets (or with null removes) the maximum context for local models; text like "32768" or "32k". */
  setLocalContextMax(value: string | null): void {
    if (value === null) {
      this.settings.set(LOCAL_CONTEXT_MAX_KEY, undefined)
      return
    }
    const tokens = parseContextTokens(value)
    if (tokens === null)
      throw new AppError(
        'invalid-input',
        `Give the maximum context for local models in tokens, at least 1024 (e.g. 32768 or 32k), got "${value}".`,
      )
    this.settings.set(LOCAL_CONTEXT_MAX_KEY, tokens)
  }

  private storedString(key: string): string | null {
    const value = this.settings.get<unknown>(key)
    return typeof value === 'string' && value.trim() ? value : null
  }

  /**
   * The fast model for side jobs (parsing, checkpoints, verdicts) against `main`: RALPH_FAST_MODEL /
   * RALPH_FAST_BASE_URL over the stored setting; null when none is set (the main model does them). A bad value is
   * a config error naming where it came from.
   */
  fastModel(main: {
    provider: ProviderSettings['provider']
    baseUrl: string | null
  }): FastModelChoice | null {
    const fromEnv = this.env.RALPH_FAST_MODEL
    const spec = fromEnv ? fromEnv : this.storedString(FAST_MODEL_KEY)
    if (!spec) return null
    const baseUrl = this.env.RALPH_FAST_BASE_URL || this.storedString(FAST_BASE_URL_KEY)
    return resolveFastModel(spec, main, baseUrl, fromEnv ? 'RALPH_FAST_MODEL' : 'the fastModel setting')
  }

  /** The fast model's call configuration (its provider's key), or null: use `main` for side jobs too. */
  fastModelConfig(main: ModelConfig): ModelConfig | null {
    const choice = this.fastModel({ provider: main.provider, baseUrl: main.baseUrl ?? null })
    if (!choice) return null
    return {
      ...choice,
      apiKey: choice.provider === main.provider ? main.apiKey : this.apiKeys.resolve(choice.provider),
      localContextMax: main.localContextMax ?? this.localContextMax(),
    }
  }

  /** Sets (or with null removes) the fast model ("MODEL" or "PROVIDER:MODEL"), checked against the main provider. */
  setFastModel(value: string | null): void {
    if (value === null || !value.trim()) {
      this.settings.set(FAST_MODEL_KEY, undefined)
      return
    }
    const main = this.effective().value
    if (main) resolveFastModel(value, main, this.storedString(FAST_BASE_URL_KEY), 'the value given')
    this.settings.set(FAST_MODEL_KEY, value.trim())
  }

  /** Sets (or with null removes) the fast model's base URL. */
  setFastBaseUrl(value: string | null): void {
    if (value === null) {
      this.settings.set(FAST_BASE_URL_KEY, undefined)
      return
    }
    const parsed = providerSettingsSchema.shape.baseUrl.safeParse(value)
    if (!parsed.success) throw new AppError('config', describeIssues(parsed.error.issues))
    this.settings.set(FAST_BASE_URL_KEY, parsed.data ?? undefined)
  }

  /** What an LLM call should use right now; a clear config error when nothing usable is set. */
  modelConfig(): ModelConfig {
    const { value } = this.effective()
    if (!value) {
      throw new AppError(
        'config',
        'No LLM provider is configured. Open Settings, or run `ralph config set provider …` and `ralph config set model …`.',
      )
    }
    return { ...value, apiKey: this.apiKeys.resolve(value.provider), localContextMax: this.localContextMax() }
  }
}
