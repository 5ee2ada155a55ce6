import { screen, waitFor } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { describe, expect, it } from 'vitest'
import type { ConnectionResult, ProviderState } from '../../../../shared/settings'
import { renderWithProviders } from '../../test/render'
import { ProviderForm } from './ProviderForm'

const state = (patch: Partial<ProviderState> = {}): ProviderState => ({
  settings: { provider: 'ollama', model: 'llama3:8b', baseUrl: 'http://127.0.0.1:11434' },
  effective: { provider: 'ollama', model: 'llama3:8b', baseUrl: 'http://127.0.0.1:11434' },
  overriddenByEnv: [],
  apiKey: { present: false, backend: 'none', hint: null, envVar: null },
  localContextMax: null,
  ...patch,
})

const smallWindow: ConnectionResult = {
  ok: true,
  message:
    'Connected to llama3:8b in 12 ms — it replied "OK". Context window: 8192 tokens (sent to Ollama as num_ctx).',
  latencyMs: 12,
  contextWindow: 8192,
  warning:
    'llama3:8b runs with a 8192-token context window, under the 16384 tokens agentic work needs: iterations will checkpoint early and lose detail. The model was trained for 8192 tokens, so it cannot run with more: pick a model with a longer context (ollama show MODEL lists it).',
}

describe('ProviderForm and local models', () => {
  it('warns after Test connection when the local window is under 16K, with how to raise it', async () => {
    const user = userEvent.setup()
    renderWithProviders(<ProviderForm />, {
      'settings.getProvider': () => state(),
      'settings.detectLocal': () => [],
      'settings.testConnection': () => smallWindow,
      'settings.listModels': () => ({ models: ['llama3:8b'] }),
    })
    await waitFor(() => expect(screen.getByLabelText('Model')).toHaveValue('llama3:8b'))
    expect(screen.getByLabelText(/Base URL/)).toHaveAttribute('placeholder', 'http://127.0.0.1:11434')
    expect(screen.queryByTestId('context-warning')).toBeNull()
    await user.click(screen.getByRole('button', { name: 'Test connection' }))
    expect(await screen.findByTestId('test-result')).toHaveTextContent('Context window: 8192 tokens')
    expect(screen.getByTestId('context-warning')).toHaveTextContent('pick a model with a longer context')
  })

  it('saves Max context for local models, and hides it for a hosted provider', async () => {
    const user = userEvent.setup()
    const { calls } = renderWithProviders(<ProviderForm />, {
      'settings.getProvider': () => state({ localContextMax: 32768 }),
      'settings.detectLocal': () => [],
      'settings.setProvider': () => state({ localContextMax: 65536 }),
    })
    const field = await screen.findByLabelText(/Max context for local models/)
    await waitFor(() => expect(field).toHaveValue('32768'))
    await user.clear(field)
    await user.type(field, '65536')
    await user.click(screen.getByRole('button', { name: 'Save' }))
    await screen.findByTestId('saved')
    const saved = calls.find((c) => c.name === 'settings.setProvider')!.input as {
      settings: { localContextMax: number | null }
    }
    expect(saved.settings.localContextMax).toBe(65536)

    await user.selectOptions(screen.getByLabelText('Provider'), 'openai')
    expect(screen.queryByLabelText(/Max context for local models/)).toBeNull()
  })

  it('saves a fast model, and offers its base URL only once one is named', async () => {
    const user = userEvent.setup()
    const { calls } = renderWithProviders(<ProviderForm />, {
      'settings.getProvider': () => state(),
      'settings.detectLocal': () => [],
      'settings.setProvider': () => state({ fastModel: 'openrouter:anthropic/claude-haiku-4.5' }),
    })
    const field = await screen.findByLabelText(/Fast model/, { selector: '#fast-model' })
    expect(screen.queryByLabelText(/Fast model base URL/)).toBeNull()
    await user.type(field, 'openrouter:anthropic/claude-haiku-4.5')
    expect(screen.getByLabelText(/Fast model base URL/)).toHaveValue('')
    await user.click(screen.getByRole('button', { name: 'Save' }))
    await screen.findByTestId('saved')
    const saved = calls.find((c) => c.name === 'settings.setProvider')!.input as {
      settings: { fastModel: string | null; fastBaseUrl: string | null }
    }
    expect(saved.settings).toMatchObject({
      fastModel: 'openrouter:anthropic/claude-haiku-4.5',
      fastBaseUrl: null,
    })
  })
})

describe('ProviderForm: the server’s model list', () => {
  const compatible = state({
    settings: { provider: 'openai-compatible', model: 'qwen', baseUrl: 'http://127.0.0.1:1234/v1' },
  })
  const options = () =>
    [...document.querySelectorAll('#model-options option')].map((o) => o.getAttribute('value'))

  it('offers the models the server lists after Test connection, and a typed name still counts', async () => {
    const user = userEvent.setup()
    const { calls } = renderWithProviders(<ProviderForm />, {
      'settings.getProvider': () => compatible,
      'settings.detectLocal': () => [],
      'settings.testConnection': () => ({ ok: true, message: 'Connected to qwen in 5 ms.', latencyMs: 5 }),
      'settings.listModels': () => ({ models: ['qwen', 'llama-3.1-8b'] }),
      'settings.setProvider': () => compatible,
    })
    const model = await screen.findByLabelText('Model')
    await waitFor(() => expect(model).toHaveValue('qwen'))
    expect(options()).toEqual([])
    await user.click(screen.getByRole('button', { name: 'Test connection' }))
    expect(await screen.findByTestId('model-list-hint')).toHaveTextContent('The server offers 2 models')
    expect(options()).toEqual(['qwen', 'llama-3.1-8b'])
    expect(calls.find((c) => c.name === 'settings.listModels')!.input).toEqual({
      provider: 'openai-compatible',
      baseUrl: 'http://127.0.0.1:1234/v1',
    })
    await user.clear(model)
    await user.type(model, 'my-own-model')
    await user.click(screen.getByRole('button', { name: 'Save' }))
    await waitFor(() => expect(calls.some((c) => c.name === 'settings.setProvider')).toBe(true))
    const saved = calls.find((c) => c.name === 'settings.setProvider')!.input as {
      settings: { model: string }
    }
    expect(saved.settings.model).toBe('my-own-model')
  })

  it('fills an empty Model with the one model the server offers, and keeps a typed one', async () => {
    const user = userEvent.setup()
    renderWithProviders(<ProviderForm />, {
      'settings.getProvider': () => state({ settings: null, effective: null }),
      'settings.detectLocal': () => [],
      'settings.listModels': () => ({ models: ['qwen2.5-coder:7b'] }),
      'settings.testConnection': () => ({ ok: true, message: 'Connected.', latencyMs: 5 }),
    })
    await user.selectOptions(await screen.findByLabelText('Provider'), 'ollama')
    const model = screen.getByLabelText('Model')
    expect(model).toHaveValue('')
    await user.click(screen.getByRole('button', { name: 'List models' }))
    await waitFor(() => expect(model).toHaveValue('qwen2.5-coder:7b'))
    expect(screen.getByTestId('model-list-hint')).toHaveTextContent(
      'The server offers one model, qwen2.5-coder:7b: it is filled in above.',
    )
    await user.clear(model)
    await user.type(model, 'mine')
    await user.click(screen.getByRole('button', { name: 'Test connection' }))
    await screen.findByTestId('model-list-hint')
    expect(model).toHaveValue('mine')
  })

  it('says under each overridden field what calls use and which variable it comes from', async () => {
    renderWithProviders(<ProviderForm />, {
      'settings.getProvider': () =>
        state({
          settings: { provider: 'anthropic', model: 'claude-x', baseUrl: null },
          effective: { provider: 'anthropic', model: 'claude-sonnet-4-5', baseUrl: null },
          overriddenByEnv: ['RALPH_MODEL'],
          apiKey: { present: true, backend: 'env', hint: '…envk', envVar: 'ANTHROPIC_API_KEY' },
          envOverrides: [
            { field: 'model', envVar: 'RALPH_MODEL', value: 'claude-sonnet-4-5', stored: 'claude-x' },
            { field: 'apiKey', envVar: 'ANTHROPIC_API_KEY', value: '…envk', stored: '…stor' },
          ],
        }),
      'settings.detectLocal': () => [],
    })
    const model = await screen.findByLabelText('Model')
    await waitFor(() => expect(model).toHaveValue('claude-x'))
    expect(model).toHaveAccessibleDescription(
      'Calls use “claude-sonnet-4-5” from RALPH_MODEL in the environment — it overrides the stored “claude-x”. What you save here is used once RALPH_MODEL is unset.',
    )
    const key = screen.getByLabelText(/API key/)
    expect(key).toHaveAccessibleDescription(
      /^Calls use the key …envk from ANTHROPIC_API_KEY in the environment — it overrides the stored key …stor\./,
    )
    expect(key).toHaveAttribute('placeholder', 'Stored …stor — type to replace')
    expect(screen.queryByTestId('key-status')).toBeNull()
    expect(screen.queryByTestId('env-override-provider')).toBeNull()
    expect(screen.getByLabelText('Provider')).not.toHaveAttribute('aria-describedby')
  })

  it('lists on demand, says why it cannot, and offers no list for Anthropic', async () => {
    const user = userEvent.setup()
    renderWithProviders(<ProviderForm />, {
      'settings.getProvider': () => compatible,
      'settings.detectLocal': () => [],
      'settings.listModels': () => {
        throw new Error('Nothing answered at http://127.0.0.1:1234/v1/models.')
      },
    })
    await waitFor(() => expect(screen.getByLabelText('Model')).toHaveValue('qwen'))
    await user.click(screen.getByRole('button', { name: 'List models' }))
    expect(await screen.findByTestId('model-list-error')).toHaveTextContent('Nothing answered')
    await user.selectOptions(screen.getByLabelText('Provider'), 'anthropic')
    expect(screen.queryByRole('button', { name: 'List models' })).toBeNull()
    expect(screen.queryByTestId('model-list-error')).toBeNull()
  })

  it('saves once when Save is double-clicked', async () => {
    const user = userEvent.setup()
    let release: () => void = () => {}
    const { calls } = renderWithProviders(<ProviderForm />, {
      'settings.getProvider': () => compatible,
      'settings.detectLocal': () => [],
      'settings.setProvider': () => new Promise((resolve) => (release = () => resolve(compatible))),
    })
    await waitFor(() => expect(screen.getByLabelText('Model')).toHaveValue('qwen'))
    await user.dblClick(screen.getByRole('button', { name: 'Save' }))
    await waitFor(() => expect(screen.getByRole('button', { name: 'Saving…' })).toBeDisabled())
    release()
    await screen.findByTestId('saved')
    expect(calls.filter((c) => c.name === 'settings.setProvider')).toHaveLength(1)
  })
})
