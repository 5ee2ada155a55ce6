import { useEffect, useState, type FormEvent } from 'react'
import {
  providerIds,
  providerLabels,
  type LocalServer,
  type ProviderId,
  type ProviderSettings,
  type ProviderState,
} from '../../../shared/settings'
import { useStudio } from '../state/store'

const modelHints: Record<ProviderId, string> = {
  openai: 'gpt-4o-mini',
  anthropic: 'claude-sonnet-4-5',
  'openai-compatible': 'llama3.1',
}

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
}

function initialForm(provider: ProviderState | null, localServers: LocalServer[] | null): FormValues {
  const stored = provider?.settings
  if (stored) return { provider: stored.provider, model: stored.model, baseUrl: stored.baseUrl ?? '' }
  const local = localServers?.[0]
  if (local) return { provider: 'openai-compatible', model: local.models[0] ?? '', baseUrl: local.baseUrl }
  return { provider: 'openai', model: '', baseUrl: '' }
}

/**
 * A base URL belongs to its provider: switching to OpenAI or Anthropic must not keep an Ollama address, and
 * switching to openai-compatible offers the local server that was found.
 */
function switchProvider(
  form: FormValues,
  provider: ProviderId,
  localServers: LocalServer[] | null,
): FormValues {
  if (provider === form.provider) return form
  if (provider === 'openai-compatible') {
    const local = localServers?.[0]
    return { provider, model: local?.models[0] ?? '', baseUrl: local?.baseUrl ?? '' }
  }
  return { provider, model: '', baseUrl: '' }
}

/** LLM provider settings, with a real "Test connection" and a local model server offered when nothing is set. */
export function SettingsPage() {
  const provider = useStudio((s) => s.provider)
  const localServers = useStudio((s) => s.localServers)
  const saving = useStudio((s) => s.saving)
  const saveError = useStudio((s) => s.saveError)
  const testing = useStudio((s) => s.testing)
  const testResult = useStudio((s) => s.testResult)
  const { detectLocal, saveProvider, testConnection, clearSettingsFeedback } = useStudio.getState()

  // The user's edits; until they type, the form shows the stored settings or else the first local server found.
  const [draft, setDraft] = useState<FormValues | null>(null)
  const [apiKey, setApiKey] = useState('')
  const [saved, setSaved] = useState(false)
  const form = draft ?? initialForm(provider, localServers)

  useEffect(() => {
    void detectLocal()
  }, [detectLocal])

  const update = (patch: Partial<FormValues>) => {
    setDraft({ ...form, ...patch })
    setSaved(false)
    clearSettingsFeedback()
  }

  const current = (): ProviderSettings => ({
    provider: form.provider,
    model: form.model,
    baseUrl: form.baseUrl.trim() ? form.baseUrl.trim() : null,
  })

  const submit = async (event: FormEvent) => {
    event.preventDefault()
    const ok = await saveProvider(current(), apiKey ? apiKey : undefined)
    if (ok) {
      setApiKey('')
      setSaved(true)
      setDraft(null)
    }
  }

  const keyStatus = provider?.apiKey
  const modelOptions = localServers?.find((s) => s.baseUrl === form.baseUrl)?.models ?? []
  const noneConfigured = provider !== null && !provider.settings && !provider.effective

  return (
    <section className="page">
      <header className="page-header">
        <h1>Settings</h1>
        <p className="muted">The model Ralph uses for tasks. Keys never go into the database or the logs.</p>
      </header>

      {noneConfigured && localServers && localServers.length > 0 ? (
        <div className="banner info" data-testid="local-offer">
          Found {localServers.map((s) => `${s.name} (${s.models.length} models)`).join(', ')} on this machine
          — the form below uses it. No API key needed: just save.
        </div>
      ) : null}
      {provider?.overriddenByEnv.length ? (
        <div className="banner info">
          Environment variables override these settings: {provider.overriddenByEnv.join(', ')}.
        </div>
      ) : null}

      <form className="card form" onSubmit={(e) => void submit(e)} aria-label="LLM provider">
        <label htmlFor="provider">Provider</label>
        <select
          id="provider"
          value={form.provider}
          onChange={(e) => update(switchProvider(form, e.target.value as ProviderId, localServers))}
        >
          {providerIds.map((id) => (
            <option key={id} value={id}>
              {providerLabels[id]}
            </option>
          ))}
        </select>

        <label htmlFor="model">Model</label>
        <input
          id="model"
          list="model-options"
          value={form.model}
          placeholder={modelHints[form.provider]}
          onChange={(e) => update({ model: e.target.value })}
          spellCheck={false}
        />
        <datalist id="model-options">
          {modelOptions.map((m) => (
            <option key={m} value={m} />
          ))}
        </datalist>

        <label htmlFor="base-url">
          Base URL {form.provider === 'openai-compatible' ? '' : <span className="muted">(optional)</span>}
        </label>
        <input
          id="base-url"
          value={form.baseUrl}
          placeholder={
            form.provider === 'openai-compatible' ? 'http://127.0.0.1:11434/v1' : 'Default address'
          }
          onChange={(e) => update({ baseUrl: e.target.value })}
          spellCheck={false}
        />

        <label htmlFor="api-key">
          API key{' '}
          {form.provider === 'openai-compatible' ? (
            <span className="muted">(if the server needs one)</span>
          ) : null}
        </label>
        <input
          id="api-key"
          type="password"
          value={apiKey}
          autoComplete="off"
          placeholder={
            keyStatus?.present ? `Stored ${keyStatus.hint ?? ''} — type to replace` : 'Paste your key'
          }
          onChange={(e) => {
            setApiKey(e.target.value)
            setSaved(false)
          }}
        />
        {keyStatus?.present ? (
          <p className="hint" data-testid="key-status">
            Key {keyStatus.hint} is held in {backendText[keyStatus.backend]}
            {keyStatus.envVar ? ` (${keyStatus.envVar})` : ''}.
          </p>
        ) : null}

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
        {saved ? (
          <p className="field-ok" role="status" data-testid="saved">
            Saved.
          </p>
        ) : null}

        <div className="row end">
          <button
            type="button"
            disabled={testing}
            onClick={() => void testConnection(current(), apiKey || undefined)}
          >
            {testing ? 'Testing…' : 'Test connection'}
          </button>
          <button type="submit" className="primary" disabled={saving}>
            {saving ? 'Saving…' : 'Save'}
          </button>
        </div>
      </form>
    </section>
  )
}
