import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { listModels, modelsUrl } from './listModels'

// A real HTTP server that lists models as LM Studio (GET /v1/models) and Ollama (GET /api/tags) do.
describe('listModels', () => {
  let server: Server
  let origin = ''
  const seen: { path: string; auth?: string }[] = []
  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push({ path: req.url ?? '', auth: req.headers.authorization })
      res.setHeader('content-type', 'application/json')
      if (req.url === '/v1/models')
        return res.end(
          JSON.stringify({ data: [{ id: 'qwen-coder' }, { id: 'llama' }, { id: 'qwen-coder' }] }),
        )
      if (req.url === '/api/tags') return res.end(JSON.stringify({ models: [{ name: 'llama3.1:8b' }] }))
      if (req.url === '/locked/models') {
        res.statusCode = req.headers.authorization === 'Bearer right' ? 200 : 401
        return res.end(JSON.stringify({ data: [{ id: 'secret-model' }] }))
      }
      if (req.url === '/html/models') {
        res.setHeader('content-type', 'text/html')
        return res.end('<html></html>')
      }
      res.statusCode = 404
      res.end('{}')
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

  it('lists an OpenAI-compatible server’s models once each, in its order', async () => {
    const models = await listModels({ provider: 'openai-compatible', baseUrl: `${origin}/v1/`, apiKey: null })
    expect(models).toEqual(['qwen-coder', 'llama'])
  })

  it('lists Ollama’s through its native /api/tags, whatever path the address was given with', async () => {
    expect(await listModels({ provider: 'ollama', baseUrl: `${origin}/v1`, apiKey: null })).toEqual([
      'llama3.1:8b',
    ])
  })

  it('sends the key, and says so when the server refuses it', async () => {
    const locked = { provider: 'openai-compatible' as const, baseUrl: `${origin}/locked` }
    expect(await listModels({ ...locked, apiKey: 'right' })).toEqual(['secret-model'])
    expect(seen.at(-1)!.auth).toBe('Bearer right')
    await expect(listModels({ ...locked, apiKey: 'wrong' })).rejects.toThrow(/refused the API key \(401\)/)
  })

  it('says plainly when nothing answers, the path is wrong, or the answer is no model list', async () => {
    await expect(
      listModels({ provider: 'openai-compatible', baseUrl: 'http://127.0.0.1:9/v1', apiKey: null }),
    ).rejects.toThrow(/Nothing answered at http:\/\/127\.0\.0\.1:9\/v1\/models/)
    await expect(
      listModels({ provider: 'openai-compatible', baseUrl: origin, apiKey: null }),
    ).rejects.toThrow(/did not list its models \(HTTP 404\)/)
    await expect(
      listModels({ provider: 'openai-compatible', baseUrl: `${origin}/html`, apiKey: null }),
    ).rejects.toThrow(/not a model list/)
  })

  it('knows each provider’s default address, and asks for one where there is none', () => {
    expect(modelsUrl({ provider: 'openrouter', baseUrl: null, apiKey: null })).toBe(
      'https://openrouter.ai/api/v1/models',
    )
    expect(modelsUrl({ provider: 'ollama', baseUrl: null, apiKey: null })).toBe(
      'http://127.0.0.1:11434/api/tags',
    )
    expect(() => modelsUrl({ provider: 'openai-compatible', baseUrl: null, apiKey: null })).toThrow(
      /base URL first/,
    )
  })
})
