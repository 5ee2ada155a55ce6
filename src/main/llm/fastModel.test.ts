import { afterEach, describe, expect, it } from 'vitest'
import { isAppError } from '../../shared/errors'
import { createCore } from '../api/core'
import { makeTempDir } from '../../../tests/helpers/tempDir'
import { resolveFastModel } from './fastModel'

const main = { provider: 'openai-compatible' as const, baseUrl: 'http://127.0.0.1:1234/v1' }

describe('resolveFastModel', () => {
  it('takes a bare name as a model on the main provider, with the main base URL', () => {
    expect(resolveFastModel('small-model', main, null, 'test')).toEqual({
      provider: 'openai-compatible',
      model: 'small-model',
      baseUrl: 'http://127.0.0.1:1234/v1',
    })
  })

  it('reads PROVIDER:MODEL, with that provider’s default base URL unless one is given', () => {
    expect(resolveFastModel('openrouter:anthropic/claude-haiku-4.5', main, null, 'test')).toEqual({
      provider: 'openrouter',
      model: 'anthropic/claude-haiku-4.5',
      baseUrl: null,
    })
    expect(resolveFastModel('openai:gpt-5-mini', main, 'http://10.0.0.2:8080/v1', 'test').baseUrl).toBe(
      'http://10.0.0.2:8080/v1',
    )
  })

  it('keeps an Ollama tag whole: only a known provider id is a prefix', () => {
    const ollama = { provider: 'ollama' as const, baseUrl: null }
    expect(resolveFastModel('llama3.2:3b', ollama, null, 'test')).toMatchObject({
      provider: 'ollama',
      model: 'llama3.2:3b',
    })
    expect(resolveFastModel('ollama:qwen3:4b', main, null, 'test')).toMatchObject({
      provider: 'ollama',
      model: 'qwen3:4b',
    })
  })

  it('refuses what cannot be called, naming the source and the format', () => {
    for (const bad of ['openai:', 'openai-compatible:x']) {
      let err: unknown
      try {
        // openai-compatible on another provider's base URL: none, so it needs one.
        resolveFastModel(bad, { provider: 'openai', baseUrl: null }, null, 'RALPH_FAST_MODEL')
      } catch (e) {
        err = e
      }
      expect(isAppError(err, 'config')).toBe(true)
      expect((err as Error).message).toContain('RALPH_FAST_MODEL')
      expect((err as Error).message).toContain('PROVIDER:MODEL')
    }
  })
})

describe('the fast model setting', () => {
  const dirs: ReturnType<typeof makeTempDir>[] = []
  afterEach(() => dirs.splice(0).forEach((d) => d.cleanup()))
  const open = (env: NodeJS.ProcessEnv = {}) => {
    const d = makeTempDir('ralph-home-')
    dirs.push(d)
    return createCore({ appDataDir: d.path, env, host: { kind: 'web', openedFrom: 'test' } })
  }

  it('is saved with the provider form, used with its provider’s key, and removed with null', async () => {
    const core = open({ OPENROUTER_API_KEY: 'or-key' })
    const settings = core.services.providerSettings
    settings.save(
      { provider: 'openai', model: 'gpt-5', fastModel: 'openrouter:openai/gpt-5-mini' },
      'sk-main',
    )
    const state = settings.state()
    expect(state.fastModel).toBe('openrouter:openai/gpt-5-mini')
    expect(state.effectiveFastModel).toEqual({
      provider: 'openrouter',
      model: 'openai/gpt-5-mini',
      baseUrl: null,
    })
    const mainConfig = settings.modelConfig()
    expect(settings.fastModelConfig(mainConfig)).toMatchObject({
      provider: 'openrouter',
      model: 'openai/gpt-5-mini',
      apiKey: 'or-key',
    })
    settings.save({ provider: 'openai', model: 'gpt-5', fastModel: null })
    expect(settings.state().fastModel).toBeNull()
    expect(settings.fastModelConfig(settings.modelConfig())).toBeNull()
    await core.close()
  })

  it('RALPH_FAST_MODEL and RALPH_FAST_BASE_URL override the setting and say so', async () => {
    const core = open({ RALPH_FAST_MODEL: 'tiny', RALPH_FAST_BASE_URL: 'http://127.0.0.1:9/v1' })
    const settings = core.services.providerSettings
    settings.save({
      provider: 'openai-compatible',
      model: 'big',
      baseUrl: 'http://127.0.0.1:1/v1',
      fastModel: 'other',
    })
    expect(settings.state().overriddenByEnv).toEqual(
      expect.arrayContaining(['RALPH_FAST_MODEL', 'RALPH_FAST_BASE_URL']),
    )
    expect(settings.fastModelConfig(settings.modelConfig())).toMatchObject({
      provider: 'openai-compatible',
      model: 'tiny',
      baseUrl: 'http://127.0.0.1:9/v1',
    })
    await core.close()
  })

  it('OPENROUTER_API_KEY is the key of the openrouter provider only', async () => {
    const core = open({ OPENROUTER_API_KEY: 'or-key' })
    expect(core.services.apiKeys.resolve('openrouter')).toBe('or-key')
    expect(core.services.apiKeys.status('openrouter')).toMatchObject({
      backend: 'env',
      envVar: 'OPENROUTER_API_KEY',
    })
    expect(core.services.apiKeys.resolve('anthropic')).toBeNull()
    await core.close()
  })
})
