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
