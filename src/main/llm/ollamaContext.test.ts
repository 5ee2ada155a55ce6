import { generateText } from 'ai'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { startOllamaServer, type OllamaServer } from '../../../tests/fixtures/wire/ollamaServer'
import { resolveContextWindow } from './contextWindows'
import { createModel } from './createModel'
import {
  clearOllamaFacts,
  migrateLegacyOllama,
  OLLAMA_DEFAULT_NUM_CTX,
  ollamaOrigin,
  ollamaWindow,
  parseOllamaShow,
} from './ollamaContext'

describe('the Ollama window', () => {
  it('takes the Modelfile, else the trained window up to 32K; never above the trained window or the user maximum', () => {
    expect(ollamaWindow({ trained: 131_072, modelfile: null }, null)).toMatchObject({
      tokens: OLLAMA_DEFAULT_NUM_CTX,
      limitedBy: 'default',
    })
    expect(ollamaWindow({ trained: 8_192, modelfile: null }, null)).toMatchObject({
      tokens: 8_192,
      limitedBy: 'trained',
    })
    expect(ollamaWindow({ trained: 40_960, modelfile: 40_960 }, null)).toMatchObject({
      tokens: 40_960,
      limitedBy: 'modelfile',
    })
    expect(ollamaWindow({ trained: 32_768, modelfile: 65_536 }, null)).toMatchObject({
      tokens: 32_768,
      limitedBy: 'trained',
    })
    // The user's maximum both raises the 32K default (up to the trained window) and caps everything.
    expect(ollamaWindow({ trained: 131_072, modelfile: null }, 65_536)).toMatchObject({
      tokens: 65_536,
      limitedBy: 'user-max',
    })
    expect(ollamaWindow({ trained: 8_192, modelfile: null }, 65_536).tokens).toBe(8_192)
    expect(ollamaWindow({ trained: 40_960, modelfile: 40_960 }, 12_000)).toMatchObject({
      tokens: 12_000,
      limitedBy: 'user-max',
    })
    expect(ollamaWindow({ trained: null, modelfile: null }, null).tokens).toBe(OLLAMA_DEFAULT_NUM_CTX)
    expect(ollamaWindow(null, 16_384)).toMatchObject({ tokens: 16_384, limitedBy: 'user-max' })
    expect(ollamaWindow(null, null)).toMatchObject({ tokens: OLLAMA_DEFAULT_NUM_CTX, limitedBy: 'unknown' })
  })

  it('reads /api/show: the architecture’s context_length and the Modelfile’s num_ctx', () => {
    expect(
      parseOllamaShow({
        model_info: { 'general.architecture': 'qwen3', 'qwen3.context_length': 40_960 },
        parameters:
          'stop                           "<|im_end|>"\nnum_ctx                        8192\ntemperature 0.6',
      }),
    ).toEqual({ trained: 40_960, modelfile: 8_192 })
    expect(
      parseOllamaShow({ model_info: { 'general.architecture': 'x', 'llama.context_length': 2048 } }),
    ).toEqual({ trained: 2048, modelfile: null })
    expect(parseOllamaShow({})).toEqual({ trained: null, modelfile: null })
    expect(parseOllamaShow(null)).toEqual({ trained: null, modelfile: null })
  })

  it('finds the server behind a saved address, and migrates only Ollama’s /v1', () => {
    expect(ollamaOrigin(null)).toBe('http://127.0.0.1:11434')
    expect(ollamaOrigin('http://gpu-box:11434/v1/')).toBe('http://gpu-box:11434')
    expect(ollamaOrigin('http://gpu-box:11434/api')).toBe('http://gpu-box:11434')
    const legacy = {
      provider: 'openai-compatible' as const,
      model: 'm',
      baseUrl: 'http://127.0.0.1:11434/v1',
    }
    expect(migrateLegacyOllama(legacy)).toEqual({
      provider: 'ollama',
      model: 'm',
      baseUrl: 'http://127.0.0.1:11434',
    })
    const lmStudio = {
      provider: 'openai-compatible' as const,
      model: 'm',
      baseUrl: 'http://127.0.0.1:1234/v1',
    }
    expect(migrateLegacyOllama(lmStudio)).toBe(lmStudio)
    const proxy = {
      provider: 'openai-compatible' as const,
      model: 'm',
      baseUrl: 'http://host:11434/openai/v1',
    }
    expect(migrateLegacyOllama(proxy)).toBe(proxy)
  })
})

// Real HTTP to the Ollama wire fake through the real provider.
describe('num_ctx on the wire', () => {
  let server: OllamaServer
  beforeAll(async () => {
    server = await startOllamaServer()
  })
  afterAll(() => server.close())
  beforeEach(() => {
    server.requests.length = 0
    clearOllamaFacts()
  })

  it('sends the budgeted window as num_ctx on every call and asks /api/show once per model', async () => {
    const config = { provider: 'ollama' as const, model: 'llama3.1', baseUrl: server.url }
    const window = await resolveContextWindow(config)
    expect(window).toEqual({ tokens: OLLAMA_DEFAULT_NUM_CTX, source: 'ollama', limitedBy: 'default' })
    server.enqueue({ kind: 'text', text: 'one' }, { kind: 'text', text: 'two' })
    for (const expected of ['one', 'two']) {
      const result = await generateText({ model: createModel(config), prompt: 'Say it.', maxRetries: 0 })
      expect(result.text).toBe(expected)
    }
    const chats = server.requests.filter((r) => r.path === '/api/chat')
    expect(chats.map((r) => (r.body as { options?: { num_ctx?: number } }).options?.num_ctx)).toEqual([
      window.tokens,
      window.tokens,
    ])
    expect(chats.map((r) => (r.notes.context as { source: string }).source)).toEqual(['options', 'options'])
    expect(server.requests.filter((r) => r.path === '/api/show')).toHaveLength(1)
  })

  it('the user maximum reaches the wire; an unknown model is asked again next time', async () => {
    server.enqueue({ kind: 'text', text: 'OK' })
    await generateText({
      model: createModel({
        provider: 'ollama',
        model: 'qwen3:8b-40k',
        baseUrl: server.url,
        localContextMax: 20_000,
      }),
      prompt: 'Say OK.',
      maxRetries: 0,
    })
    expect(server.requests.find((r) => r.path === '/api/chat')?.body).toMatchObject({
      options: { num_ctx: 20_000 },
    })

    const missing = { provider: 'ollama' as const, model: 'nope', baseUrl: server.url }
    const first = await resolveContextWindow(missing)
    expect(first).toMatchObject({ tokens: OLLAMA_DEFAULT_NUM_CTX, limitedBy: 'unknown' })
    expect(first.error).toContain("model 'nope' not found")
    await resolveContextWindow(missing)
    expect(
      server.requests.filter((r) => r.path === '/api/show' && (r.body as { model: string }).model === 'nope'),
    ).toHaveLength(2)
  })
})
