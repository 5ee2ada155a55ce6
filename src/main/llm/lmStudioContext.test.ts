import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { localContextAdvice, resolveContextWindow } from './contextWindows'
import { isLmStudio, lmStudioWindow, parseLmStudioModels } from './lmStudioContext'

describe('LM Studio', () => {
  it('is recognised by its port on this machine or by name in RALPH_LOCAL_SERVERS, nothing else', () => {
    expect(isLmStudio('http://127.0.0.1:1234/v1', {})).toBe(true)
    expect(isLmStudio('http://localhost:1234/v1', {})).toBe(true)
    expect(isLmStudio('http://10.0.0.5:1234/v1', {})).toBe(false)
    expect(isLmStudio('http://127.0.0.1:8000/v1', {})).toBe(false)
    const env = { RALPH_LOCAL_SERVERS: 'Ollama=http://127.0.0.1:11434,LM Studio=http://10.0.0.5:4321/v1' }
    expect(isLmStudio('http://10.0.0.5:4321/v1/', env)).toBe(true)
    expect(isLmStudio('http://127.0.0.1:11434', env)).toBe(false)
    expect(isLmStudio(null, env)).toBe(false)
  })

  it('budgets the loaded context; a model not loaded yet gets LM Studio’s default', () => {
    const body = {
      data: [
        { id: 'a', state: 'loaded', loaded_context_length: 12_288, max_context_length: 32_768 },
        { id: 'b', state: 'not-loaded', max_context_length: 131_072 },
      ],
    }
    expect(parseLmStudioModels(body, 'a')).toEqual({ loaded: 12_288, max: 32_768 })
    expect(lmStudioWindow(parseLmStudioModels(body, 'b')!)).toMatchObject({
      tokens: 4_096,
      limitedBy: 'not-loaded',
    })
    expect(parseLmStudioModels(body, 'c')).toBeNull()
    expect(parseLmStudioModels({ error: 'x' }, 'a')).toBeNull()
  })
})

describe('LM Studio over HTTP', () => {
  let server: Server
  let base: string
  let models: unknown[] = []
  beforeAll(async () => {
    server = createServer((req, res) => {
      res.writeHead(req.url === '/api/v0/models' ? 200 : 404, { 'content-type': 'application/json' })
      res.end(
        JSON.stringify(req.url === '/api/v0/models' ? { data: models } : { error: 'Unexpected endpoint' }),
      )
    })
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`
  })
  afterAll(() => new Promise<void>((r) => server.close(() => r())))

  it('reads the window where the server reports it, and advises on a small one', async () => {
    const env = { RALPH_LOCAL_SERVERS: `LM Studio=${base}` }
    const config = { provider: 'openai-compatible' as const, model: 'coder', baseUrl: base }
    models = [{ id: 'coder', state: 'loaded', loaded_context_length: 65_536, max_context_length: 131_072 }]
    expect(await resolveContextWindow(config, {}, env)).toEqual({
      tokens: 65_536,
      source: 'lm-studio',
      limitedBy: 'loaded',
    })
    // The user's maximum and their own table still cap it; never raise it.
    expect((await resolveContextWindow({ ...config, localContextMax: 20_000 }, {}, env)).tokens).toBe(20_000)
    expect((await resolveContextWindow(config, { coder: 16_000 }, env)).tokens).toBe(16_000)

    models = [{ id: 'coder', state: 'loaded', loaded_context_length: 8_192, max_context_length: 131_072 }]
    const small = await resolveContextWindow(config, {}, env)
    expect(small.tokens).toBe(8_192)
    expect(localContextAdvice('coder', small)).toContain('load it again with a larger "Context Length"')

    // Not named LM Studio: the tables, and no request.
    expect(await resolveContextWindow(config, {}, {})).toEqual({ tokens: 16_384, source: 'fallback' })
  })
})
