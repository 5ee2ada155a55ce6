import { readFileSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { createCore } from '../api/core'
import { makeTempDir } from '../../../tests/helpers/tempDir'

const KEY = 'sk-test-THIS-MUST-NEVER-APPEAR-IN-SQLITE-1234'

describe('provider settings', () => {
  const dirs: ReturnType<typeof makeTempDir>[] = []
  const home = () => {
    const d = makeTempDir('ralph-home-')
    dirs.push(d)
    return d.path
  }
  afterEach(() => dirs.splice(0).forEach((d) => d.cleanup()))
  const open = (appDataDir: string, env: NodeJS.ProcessEnv = {}) =>
    createCore({ appDataDir, env, host: { kind: 'web', openedFrom: 'test' } })

  it('persists settings and the key across restarts, with the key outside SQLite', async () => {
    const dir = home()
    const first = open(dir)
    first.services.providerSettings.save({ provider: 'openai', model: 'gpt-4o-mini' }, KEY)
    await first.close()

    const second = open(dir)
    const state = second.services.providerSettings.state()
    expect(state.settings).toEqual({ provider: 'openai', model: 'gpt-4o-mini', baseUrl: null })
    expect(state.apiKey).toEqual({ present: true, backend: 'file', hint: '…1234', envVar: null })
    expect(second.services.providerSettings.modelConfig().apiKey).toBe(KEY)
    await second.close()

    for (const file of readdirSync(dir).filter((f) => f.startsWith('ralph.db'))) {
      expect(readFileSync(join(dir, file)).includes(KEY)).toBe(false)
    }
    const vault = join(dir, 'secrets.json')
    expect(statSync(vault).mode & 0o777).toBe(0o600)
  })

  it('saves nothing when any part is invalid', async () => {
    const core = open(home())
    const { providerSettings, apiKeys } = core.services
    providerSettings.save({ provider: 'anthropic', model: 'claude-x' }, 'sk-old-key-0000')
    expect(() => providerSettings.save({ provider: 'anthropic', model: '' }, 'sk-new-key-9999')).toThrow(
      /Model must not be empty/,
    )
    expect(() => providerSettings.save({ provider: 'acme', model: 'm' })).toThrow(/Unknown provider "acme"/)
    expect(() =>
      providerSettings.save({ provider: 'openai-compatible', model: 'm', baseUrl: 'localhost:1234' }),
    ).toThrow(/Base URL must be a full http/)
    expect(providerSettings.stored()).toEqual({ provider: 'anthropic', model: 'claude-x', baseUrl: null })
    expect(apiKeys.resolve('anthropic')).toBe('sk-old-key-0000')
    await core.close()
  })

  it('lets RALPH_* variables override stored settings and says so', async () => {
    const dir = home()
    const seed = open(dir)
    seed.services.providerSettings.save({ provider: 'openai', model: 'gpt-4o-mini' }, 'sk-stored-aaaa')
    await seed.close()
    const core = open(dir, { RALPH_MODEL: 'gpt-5', RALPH_API_KEY: 'sk-env-key-bbbb' })
    const state = core.services.providerSettings.state()
    expect(state.effective).toEqual({ provider: 'openai', model: 'gpt-5', baseUrl: null })
    expect(state.overriddenByEnv).toEqual(['RALPH_MODEL'])
    expect(state.apiKey).toMatchObject({ backend: 'env', envVar: 'RALPH_API_KEY', hint: '…bbbb' })
    expect(core.services.providerSettings.modelConfig().apiKey).toBe('sk-env-key-bbbb')
    // Per field: what calls use, the variable it comes from, and the stored value it hides (a key masked).
    expect(state.envOverrides).toEqual([
      { field: 'model', envVar: 'RALPH_MODEL', value: 'gpt-5', stored: 'gpt-4o-mini' },
      { field: 'apiKey', envVar: 'RALPH_API_KEY', value: '…bbbb', stored: '…aaaa' },
    ])
    await core.close()
  })

  it('names each overridden setting with its variable, also where nothing is stored under it', async () => {
    const core = open(home(), {
      RALPH_PROVIDER: 'anthropic',
      RALPH_MODEL: 'claude-sonnet-4-5',
      ANTHROPIC_API_KEY: 'sk-ant-env-cccc',
      RALPH_LOCAL_CONTEXT_MAX: '32k',
      RALPH_FAST_MODEL: 'claude-haiku-4-5',
    })
    const state = core.services.providerSettings.state()
    expect(state.settings).toBe(null)
    expect(state.envOverrides).toEqual([
      { field: 'provider', envVar: 'RALPH_PROVIDER', value: 'anthropic', stored: null },
      { field: 'model', envVar: 'RALPH_MODEL', value: 'claude-sonnet-4-5', stored: null },
      { field: 'localContextMax', envVar: 'RALPH_LOCAL_CONTEXT_MAX', value: '32k', stored: null },
      { field: 'fastModel', envVar: 'RALPH_FAST_MODEL', value: 'anthropic:claude-haiku-4-5', stored: null },
      { field: 'apiKey', envVar: 'ANTHROPIC_API_KEY', value: '…cccc', stored: null },
    ])
    await core.close()
  })

  it('reports a bad environment override clearly', async () => {
    const core = open(home(), { RALPH_PROVIDER: 'nonsense', RALPH_MODEL: 'm' })
    expect(() => core.services.providerSettings.modelConfig()).toThrow(
      /from RALPH_PROVIDER.*Unknown provider "nonsense"/,
    )
    await core.close()
  })

  it('asks for configuration when nothing is set', async () => {
    const core = open(home())
    expect(() => core.services.providerSettings.modelConfig()).toThrow(/No LLM provider is configured/)
    await core.close()
  })

  it('turns a saved Ollama /v1 address into the native ollama provider, and writes it back', async () => {
    const dir = home()
    const seed = open(dir)
    seed.services.settings.setMany({
      'llm.provider': 'openai-compatible',
      'llm.model': 'llama3.1',
      'llm.baseUrl': 'http://127.0.0.1:11434/v1',
    })
    await seed.close()
    const core = open(dir)
    const { providerSettings, settings } = core.services
    expect(providerSettings.state().settings).toEqual({
      provider: 'ollama',
      model: 'llama3.1',
      baseUrl: 'http://127.0.0.1:11434',
    })
    expect(settings.get('llm.provider')).toBe('ollama')
    expect(settings.get('llm.baseUrl')).toBe('http://127.0.0.1:11434')
    // Another chat-completions server keeps its provider and address.
    providerSettings.save({ provider: 'openai-compatible', model: 'm', baseUrl: 'http://127.0.0.1:1234/v1' })
    expect(providerSettings.state().settings?.provider).toBe('openai-compatible')
    await core.close()
  })

  it('migrates the same address given by environment variables, without writing it', async () => {
    const core = open(home(), {
      RALPH_PROVIDER: 'openai-compatible',
      RALPH_MODEL: 'qwen3',
      RALPH_BASE_URL: 'http://localhost:11434/v1/',
    })
    expect(core.services.providerSettings.modelConfig()).toMatchObject({
      provider: 'ollama',
      baseUrl: 'http://localhost:11434',
      localContextMax: null,
    })
    expect(core.services.settings.get('llm.provider')).toBeUndefined()
    await core.close()
  })

  it('keeps the maximum context for local models; the environment overrides it, and bad values are refused', async () => {
    const dir = home()
    const core = open(dir)
    const { providerSettings } = core.services
    providerSettings.save({ provider: 'ollama', model: 'llama3.1' })
    expect(providerSettings.localContextMax()).toBeNull()
    providerSettings.setLocalContextMax('64k')
    expect(providerSettings.modelConfig().localContextMax).toBe(64_000)
    expect(() => providerSettings.setLocalContextMax('12')).toThrow(/at least 1024/)
    expect(providerSettings.localContextMax()).toBe(64_000)
    providerSettings.setLocalContextMax(null)
    expect(providerSettings.localContextMax()).toBeNull()
    await core.close()

    const fromEnv = open(dir, { RALPH_LOCAL_CONTEXT_MAX: '16384' })
    expect(fromEnv.services.providerSettings.modelConfig().localContextMax).toBe(16_384)
    await fromEnv.close()
    const bad = open(dir, { RALPH_LOCAL_CONTEXT_MAX: 'big' })
    expect(() => bad.services.providerSettings.modelConfig()).toThrow(/RALPH_LOCAL_CONTEXT_MAX must be/)
    await bad.close()
  })

  it('saves the maximum context with the provider form: a number sets it, null removes it, absent keeps it', async () => {
    const core = open(home())
    const { providerSettings } = core.services
    providerSettings.save({ provider: 'ollama', model: 'llama3.1', localContextMax: 65_536 })
    expect(providerSettings.state()).toMatchObject({ localContextMax: 65_536, overriddenByEnv: [] })
    providerSettings.save({ provider: 'ollama', model: 'qwen3' })
    expect(providerSettings.localContextMax()).toBe(65_536)
    expect(() => providerSettings.save({ provider: 'ollama', model: 'qwen3', localContextMax: 100 })).toThrow(
      /at least 1024 tokens/,
    )
    providerSettings.save({ provider: 'ollama', model: 'qwen3', localContextMax: null })
    expect(providerSettings.state().localContextMax).toBeNull()
    // A value typed in the form and not saved yet is what Test connection uses.
    expect(providerSettings.localContextMax(20_000)).toBe(20_000)
    await core.close()
    const env = open(home(), { RALPH_LOCAL_CONTEXT_MAX: '8192' })
    expect(env.services.providerSettings.state().overriddenByEnv).toEqual(['RALPH_LOCAL_CONTEXT_MAX'])
    expect(env.services.providerSettings.localContextMax(20_000)).toBe(8_192)
    await env.close()
  })
})
