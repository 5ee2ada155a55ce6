import { useState, type FormEvent, type ReactNode } from 'react'
import {
  providerIds,
  providerLabels,
  type EnvOverride,
  type LocalServer,
  type ProviderId,
  type ProviderSettings,
  type ProviderState,
} from '../../../../shared/settings'
import { errorMessage } from '../../app/queries'
import { ActionButton, Banner, Button, useSingleFlight } from '../../ui'
import { overrideFor, overrideText, withSingleModel } from './providerFormLogic'
import { useListModels, useLocalServers, useProvider, useSaveProvider, useTestConnection } from './queries'

const modelHints: Record<ProviderId, string> = {
  openai: 'gpt-4o-mini',
  anthropic: 'claude-sonnet-4-5',
  ollama: 'llama3.1',
  openrouter: 'anthropic/claude-sonnet-4.5',
  'openai-compatible': 'qwen2.5-coder-7b-instruct',
}

const baseUrlHints: Record<ProviderId, string> = {
  openai: 'Default address',
  anthropic: 'Default address',
  ollama: 'http://127.0.0.1:11434',
  openrouter: 'https://openrouter.ai/api/v1',
  'openai-compatible': 'http://127.0.0.1:1234/v1',
}

const isLocal = (provider: ProviderId) => provider === 'ollama' || provider === 'openai-compatible'

/** Providers whose server lists its models (GET {base}/models, Ollama's /api/tags); OpenAI's at a custom base URL. */
const listsModels = (provider: ProviderId, baseUrl: string) =>
  provider === 'ollama' ||
  provider === 'openrouter' ||
  provider === 'openai-compatible' ||
  (provider === 'openai' && baseUrl.trim() !== '')

/** The server a model list belongs to: another provider or address needs its own. */
const serverKey = (provider: ProviderId, baseUrl: string) => `${provider} ${baseUrl.trim()}`

const backendText = {
  'safe-storage': 'the system keychain (Electron safeStorage)',
  file: 'a private file in the app data folder (readable only by you)',
  env: 'an environment variable',
  none: '',
} as const

interface FormValues {
  provider: ProviderId
  model: string
  baseUrl: string
  /** Max context for local models, as typed; empty: none set. */
  localContextMax: string
  /** The fast model for side jobs ("MODEL" or "PROVIDER:MODEL"); empty: the main model does them. */
  fastModel: string
  /** The fast model's base URL; empty: the main one's (same provider) or its provider's default. */
  fastBaseUrl: string
}

/** Under a field an environment variable overrides: the value calls use and where it comes from. */
function EnvNote({ id, override }: { id: string; override: EnvOverride | undefined }) {
  if (!override) return null
  return (
    <p className="hint env-override" id={id} data-testid={`env-override-${override.field}`}>
      {overrideText(override)}
    </p>
  )
}

/** The API key field's placeholder: the stored key's hint (not the environment's, which the note names). */
function keyPlaceholder(
  status: ProviderState['apiKey'] | undefined,
  override: EnvOverride | undefined,
): string {
  const stored = override ? override.stored : status?.present ? status.hint : null
  return stored ? `Stored ${stored} — type to replace` : override ? 'Paste a key to store' : 'Paste your key'
}

/** The ids that describe a field, for aria-describedby; undefined when none does. */
const describedBy = (...ids: (string | false | null | undefined)[]) =>
  ids.filter(Boolean).join(' ') || undefined

/**
 * One text field of the form (no spell check): the label with what makes it optional, the input, then the hint
 * that describes it.
 */
function TextField({
  id,
  label,
  optional,
  value,
  placeholder,
  onChange,
  inputMode,
  hint,
  override,
}: {
  id: string
  label: string
  optional?: string
  value: string
  placeholder: string
  onChange: (value: string) => void
  inputMode?: 'numeric'
  hint?: { id: string; text: ReactNode } | null
  override?: EnvOverride
}) {
  return (
    <div className="field">
      <label htmlFor={id}>
        {/* "Label " as one text node, so its glyphs sit where they did (a split node shifts the "(" by a subpixel). */}
        {`${label} `}
        {optional ? <span className="optional">{optional}</span> : null}
      </label>
      <input
        id={id}
        inputMode={inputMode}
        value={value}
        placeholder={placeholder}
        onChange={(e) => onChange(e.target.value)}
        spellCheck={false}
        aria-describedby={describedBy(override && `${id}-env`, hint?.id)}
      />
      <EnvNote id={`${id}-env`} override={override} />
      {hint ? (
        <p className="hint" id={hint.id}>
          {hint.text}
        </p>
      ) : null}
    </div>
  )
}

function initialForm(
  provider: ProviderState | undefined,
  localServers: LocalServer[] | undefined,
): FormValues {
  const stored = provider?.settings
  const localContextMax = provider?.localContextMax ? String(provider.localContextMax) : ''
  const fast = { fastModel: provider?.fastModel ?? '', fastBaseUrl: provider?.fastBaseUrl ?? '' }
  if (stored)
    return {
      provider: stored.provider,
      model: stored.model,
      baseUrl: stored.baseUrl ?? '',
      localContextMax,
      ...fast,
    }
  const local = localServers?.[0]
  if (local)
    return {
      provider: local.provider ?? 'openai-compatible',
      model: local.models[0] ?? '',
      baseUrl: local.baseUrl,
      localContextMax,
      ...fast,
    }
  return { provider: 'openai', model: '', baseUrl: '', localContextMax, ...fast }
}

/**
 * A base URL belongs to its provider: switching to OpenAI or Anthropic must not keep an Ollama address, and
 * switching to Ollama or openai-compatible offers the local server of that kind that was found.
 */
function switchProvider(
  form: FormValues,
  provider: ProviderId,
  localServers: LocalServer[] | undefined,
): FormValues {
  if (provider === form.provider) return form
  if (isLocal(provider)) {
    const local = localServers?.find((s) => (s.provider ?? 'openai-compatible') === provider)
    return { ...form, provider, model: local?.models[0] ?? '', baseUrl: local?.baseUrl ?? '' }
  }
  return { ...form, provider, model: '', baseUrl: '' }
}

/** LLM provider settings, with a real "Test connection" and a local model server offered when nothing is set. */
export function ProviderForm() {
  const provider = useProvider()
  const localServers = useLocalServers()
  const save = useSaveProvider()
  const test = useTestConnection()
  const list = useListModels()

  // The user's edits; until they type, the form shows the stored settings or else the first local server found.
  const [draft, setDraft] = useState<FormValues | null>(null)
  const [apiKey, setApiKey] = useState('')
  const [saved, setSaved] = useState(false)
  /** The models the server listed, for the server they came from (switching server hides them). */
  const [listed, setListed] = useState<{ key: string; models: string[] } | null>(null)
  const form = draft ?? initialForm(provider.data, localServers.data)

  const clearFeedback = () => {
    setSaved(false)
    save.reset()
    test.reset()
    list.reset()
  }
  const update = (patch: Partial<FormValues>) => {
    setDraft({ ...form, ...patch })
    clearFeedback()
  }

  const current = (): ProviderSettings => ({
    provider: form.provider,
    model: form.model,
    baseUrl: form.baseUrl.trim() ? form.baseUrl.trim() : null,
    // Number('') would be 0; empty means none set. The schema explains any other bad value.
    localContextMax: form.localContextMax.trim() ? Number(form.localContextMax.trim()) : null,
    fastModel: form.fastModel.trim() ? form.fastModel.trim() : null,
    fastBaseUrl: form.fastModel.trim() && form.fastBaseUrl.trim() ? form.fastBaseUrl.trim() : null,
  })

  const saving = useSingleFlight(() =>
    save.mutateAsync(
      { settings: current(), apiKey: apiKey ? apiKey : undefined },
      {
        onSuccess() {
          setApiKey('')
          setSaved(true)
          setDraft(null)
        },
      },
    ),
  )
  const submit = (event: FormEvent) => {
    event.preventDefault()
    void saving.run()
  }

  const canList = listsModels(form.provider, form.baseUrl)
  const listModels = async () => {
    const key = serverKey(form.provider, form.baseUrl)
    const { models } = await list.mutateAsync({
      provider: form.provider,
      baseUrl: form.baseUrl.trim() ? form.baseUrl.trim() : null,
      apiKey: apiKey || undefined,
    })
    setListed({ key, models })
    // One model on offer and none named yet: it is the one.
    if (withSingleModel(form, models) !== form) setDraft((prev) => withSingleModel(prev ?? form, models))
  }
  /** Test connection also fills the model list, where the server has one. */
  const testConnection = async () => {
    const result = await test.mutateAsync({ settings: current(), apiKey: apiKey || undefined })
    if (result.ok && canList) await listModels()
  }

  const state = provider.data
  const envFor = (field: Parameters<typeof overrideFor>[1]) => overrideFor(state, field)
  const keyStatus = state?.apiKey
  const servers = localServers.data
  const listedHere = listed?.key === serverKey(form.provider, form.baseUrl) ? listed.models : null
  const modelOptions = listedHere ?? servers?.find((s) => s.baseUrl === form.baseUrl)?.models ?? []
  const listError = list.error ? errorMessage(list.error) : null
  const noneConfigured = state !== undefined && !state.settings && !state.effective
  const loadError = provider.error ? errorMessage(provider.error) : null
  const saveError = save.error ? errorMessage(save.error) : loadError
  const testResult = test.data ?? (test.error ? { ok: false, message: errorMessage(test.error) } : null)
  const contextWarning = test.data?.warning ?? null

  return (
    <>
      {noneConfigured && servers && servers.length > 0 ? (
        <Banner tone="info" data-testid="local-offer">
          Found{' '}
          {servers
            .map((s) => `${s.name} (${s.models.length} ${s.models.length === 1 ? 'model' : 'models'})`)
            .join(', ')}{' '}
          on this machine — the form below uses it. No API key needed: just save.
        </Banner>
      ) : null}
      {state?.overriddenByEnv.length ? (
        <Banner tone="info">
          Environment variables override some of these settings ({state.overriddenByEnv.join(', ')}): each
          field says what calls use.
        </Banner>
      ) : null}

      <form className="card form" onSubmit={submit} aria-label="LLM provider">
        <div className="field">
          <label htmlFor="provider">Provider</label>
          <select
            id="provider"
            aria-describedby={envFor('provider') ? 'provider-env' : undefined}
            value={form.provider}
            onChange={(e) => update(switchProvider(form, e.target.value as ProviderId, servers))}
          >
            {providerIds.map((id) => (
              <option key={id} value={id}>
                {providerLabels[id]}
              </option>
            ))}
          </select>
          <EnvNote id="provider-env" override={envFor('provider')} />
        </div>

        <div className="field">
          <label htmlFor="model">Model</label>
          <div className="model-row">
            <input
              id="model"
              list="model-options"
              value={form.model}
              placeholder={modelHints[form.provider]}
              onChange={(e) => update({ model: e.target.value })}
              spellCheck={false}
              aria-describedby={describedBy(
                envFor('model') && 'model-env',
                (listedHere || listError) && 'model-list-hint',
              )}
            />
            {canList ? (
              <ActionButton onAction={listModels} title="Ask the server which models it offers">
                {list.isPending ? 'Listing…' : 'List models'}
              </ActionButton>
            ) : null}
          </div>
          <EnvNote id="model-env" override={envFor('model')} />
          <datalist id="model-options">
            {modelOptions.map((m) => (
              <option key={m} value={m} />
            ))}
          </datalist>
          {listError ? (
            <p className="field-error" id="model-list-hint" role="alert" data-testid="model-list-error">
              {listError}
            </p>
          ) : listedHere ? (
            <p className="hint" id="model-list-hint" data-testid="model-list-hint">
              {listedHere.length === 1
                ? `The server offers one model, ${listedHere[0]}${form.model === listedHere[0] ? ': it is filled in above' : ''}.`
                : listedHere.length
                  ? `The server offers ${listedHere.length} ${listedHere.length === 1 ? 'model' : 'models'}: pick one from the field’s list, or type any name.`
                  : 'The server lists no models: type the model’s name.'}
            </p>
          ) : null}
        </div>

        <TextField
          id="base-url"
          label="Base URL"
          optional={form.provider === 'openai-compatible' ? undefined : '(optional)'}
          value={form.baseUrl}
          placeholder={baseUrlHints[form.provider]}
          onChange={(baseUrl) => update({ baseUrl })}
          override={envFor('baseUrl')}
          hint={
            isLocal(form.provider)
              ? {
                  id: 'local-context-hint',
                  text: (
                    <>
                      {form.provider === 'ollama'
                        ? 'Ralph asks Ollama for the model’s context window and sends it as num_ctx on every call: the Modelfile’s num_ctx if it sets one, else the trained window up to 32,768 tokens, or up to Max context for local models, which also caps the rest.'
                        : 'For LM Studio, Ralph budgets the context length the model was loaded with: set it in the load settings.'}{' '}
                      Test connection shows the window; under 16,384 tokens is too small for agentic work.
                    </>
                  ),
                }
              : null
          }
        />

        {isLocal(form.provider) ? (
          <TextField
            id="local-context-max"
            label="Max context for local models"
            optional="(tokens, optional)"
            inputMode="numeric"
            value={form.localContextMax}
            placeholder="Not set"
            onChange={(localContextMax) => update({ localContextMax })}
            override={envFor('localContextMax')}
          />
        ) : null}

        <TextField
          id="fast-model"
          label="Fast model"
          optional="(optional)"
          value={form.fastModel}
          placeholder="Not set: the model above does everything"
          onChange={(fastModel) => update({ fastModel })}
          override={envFor('fastModel')}
          hint={{
            id: 'fast-model-hint',
            text: (
              <>
                A cheaper model for task parsing, checkpoints and verification verdicts. A name uses the
                provider above (e.g. {modelHints[form.provider]}); PROVIDER:MODEL another one (e.g.
                openrouter:anthropic/claude-haiku-4.5), with that provider’s stored key.
              </>
            ),
          }}
        />

        {form.fastModel.trim() ? (
          <TextField
            id="fast-base-url"
            label="Fast model base URL"
            optional="(optional)"
            value={form.fastBaseUrl}
            placeholder="Same server as above, or the provider’s default"
            onChange={(fastBaseUrl) => update({ fastBaseUrl })}
            override={envFor('fastBaseUrl')}
          />
        ) : null}

        <div className="field">
          <label htmlFor="api-key">
            API key{' '}
            {isLocal(form.provider) ? <span className="optional">(if the server needs one)</span> : null}
          </label>
          <input
            id="api-key"
            type="password"
            value={apiKey}
            autoComplete="off"
            placeholder={keyPlaceholder(keyStatus, envFor('apiKey'))}
            aria-describedby={describedBy(
              envFor('apiKey') && 'api-key-env',
              keyStatus?.present && !envFor('apiKey') && 'key-status',
            )}
            onChange={(e) => {
              setApiKey(e.target.value)
              setSaved(false)
            }}
          />
          <EnvNote id="api-key-env" override={envFor('apiKey')} />
          {keyStatus?.present && !envFor('apiKey') ? (
            <p className="hint" id="key-status" data-testid="key-status">
              Key {keyStatus.hint} is held in {backendText[keyStatus.backend]}
              {keyStatus.envVar ? ` (${keyStatus.envVar})` : ''}.
            </p>
          ) : null}
        </div>

        {saveError ? (
          <p className="field-error" role="alert" data-testid="save-error">
            {saveError}
          </p>
        ) : null}
        {testResult ? (
          <p className={testResult.ok ? 'field-ok' : 'field-error'} role="status" data-testid="test-result">
            {testResult.message}
          </p>
        ) : null}
        {contextWarning ? (
          <Banner tone="warn" data-testid="context-warning">
            {contextWarning}
          </Banner>
        ) : null}
        {saved ? (
          <p className="field-ok" role="status" data-testid="saved">
            Saved.
          </p>
        ) : null}

        <div className="form-actions">
          <ActionButton onAction={testConnection}>
            {test.isPending ? 'Testing…' : 'Test connection'}
          </ActionButton>
          <Button type="submit" variant="primary" disabled={saving.busy} aria-busy={saving.busy || undefined}>
            {saving.busy ? 'Saving…' : 'Save'}
          </Button>
        </div>
      </form>
    </>
  )
}
