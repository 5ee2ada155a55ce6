import { describe, expect, it } from 'vitest'
import type { ProviderState } from '../../../../shared/settings'
import { localOffer, noModelReason } from './modelSetup'

const none: ProviderState = {
  settings: null,
  effective: null,
  overriddenByEnv: [],
  apiKey: { present: false, backend: 'none', hint: null, envVar: null },
}
const configured: ProviderState = {
  ...none,
  effective: { provider: 'ollama', model: 'llama3.1', baseUrl: null },
}

describe('the first-run decisions', () => {
  it('blocks sending without a model, unless an agent engine brings its own for a task', () => {
    expect(noModelReason(none, 'task', 'built-in')).toBe('Choose a model first: Settings → Model provider.')
    expect(noModelReason(none, 'ask', 'claude-code')).toBe('Choose a model first: Settings → Model provider.')
    expect(noModelReason(none, 'task', 'codex')).toBeNull()
    // The engine not known yet: a task still needs the model unless it turns out to be an agent.
    expect(noModelReason(none, 'task', undefined)).not.toBeNull()
    expect(noModelReason(configured, 'task', 'built-in')).toBeNull()
    // Still loading: not blocked on a guess.
    expect(noModelReason(undefined, 'task', 'built-in')).toBeNull()
  })

  it('says when the environment’s settings are what is unusable', () => {
    expect(noModelReason({ ...none, overriddenByEnv: ['RALPH_PROVIDER'] }, 'task', 'built-in')).toMatch(
      /environment \(RALPH_PROVIDER\) are not usable/,
    )
  })

  it('offers the first local server that lists a model, as settings to save', () => {
    expect(localOffer(undefined)).toBeNull()
    expect(
      localOffer([{ name: 'Ollama', provider: 'ollama', baseUrl: 'http://127.0.0.1:11434', models: [] }]),
    ).toBeNull()
    expect(
      localOffer([
        { name: 'Ollama', provider: 'ollama', baseUrl: 'http://127.0.0.1:11434', models: [] },
        { name: 'LM Studio', baseUrl: 'http://127.0.0.1:1234/v1', models: ['qwen', 'llama'] },
      ]),
    ).toEqual({
      server: { name: 'LM Studio', baseUrl: 'http://127.0.0.1:1234/v1', models: ['qwen', 'llama'] },
      settings: { provider: 'openai-compatible', model: 'qwen', baseUrl: 'http://127.0.0.1:1234/v1' },
    })
  })
})
