import { describe, expect, it } from 'vitest'
import type { ProviderState } from '../../../../shared/settings'
import { overrideFor, overrideText, withSingleModel } from './providerFormLogic'

describe('the provider form’s decisions', () => {
  it('fills an empty Model with the one model a server offers, and nothing else', () => {
    const empty = { provider: 'ollama', model: '' }
    expect(withSingleModel(empty, ['qwen2.5-coder:7b'])).toEqual({
      provider: 'ollama',
      model: 'qwen2.5-coder:7b',
    })
    expect(withSingleModel({ ...empty, model: '  ' }, ['m'])).toMatchObject({ model: 'm' })
    // Typed by the user: kept. Several or none: the user picks.
    expect(withSingleModel({ ...empty, model: 'mine' }, ['other'])).toMatchObject({ model: 'mine' })
    expect(withSingleModel(empty, ['a', 'b'])).toBe(empty)
    expect(withSingleModel(empty, [])).toBe(empty)
  })

  it('says the effective value, its variable and the stored value it hides', () => {
    const state = {
      envOverrides: [
        { field: 'apiKey', envVar: 'ANTHROPIC_API_KEY', value: '…env1', stored: '…sto2' },
        { field: 'model', envVar: 'RALPH_MODEL', value: 'gpt-5', stored: null },
      ],
    } as ProviderState
    expect(overrideFor(state, 'baseUrl')).toBeUndefined()
    expect(overrideFor(undefined, 'model')).toBeUndefined()
    expect(overrideText(overrideFor(state, 'apiKey')!)).toBe(
      'Calls use the key …env1 from ANTHROPIC_API_KEY in the environment — it overrides the stored key …sto2. A key saved here is used once ANTHROPIC_API_KEY is unset.',
    )
    expect(overrideText(overrideFor(state, 'model')!)).toBe(
      'Calls use “gpt-5” from RALPH_MODEL in the environment. What you save here is used once RALPH_MODEL is unset.',
    )
    expect(
      overrideText({ field: 'provider', envVar: 'RALPH_PROVIDER', value: 'anthropic', stored: 'openai' }),
    ).toContain('— it overrides the stored “openai”.')
    expect(
      overrideText({ field: 'provider', envVar: 'RALPH_PROVIDER', value: 'ollama', stored: 'ollama' }),
    ).toBe('Calls use “ollama” from RALPH_PROVIDER in the environment, the same as stored.')
  })
})
