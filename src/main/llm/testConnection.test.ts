import { memoryLogger } from '../workspace/logFile'
import { createServer } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startFakeLlmServer, type FakeLlmServer } from '../../../tests/fixtures/fakeLlmServer'
import { detectLocalServers } from './localServers'
import { testConnection } from './testConnection'

async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const { port } = server.address() as { port: number }
  await new Promise<void>((r) => server.close(() => r()))
  return port
}

// Real HTTP through the AI SDK to a scripted OpenAI-compatible server.
describe('testConnection', () => {
  let llm: FakeLlmServer
  beforeAll(async () => {
    llm = await startFakeLlmServer()
  })
  afterAll(() => llm.close())

  it('succeeds with a real round trip and says what answered', async () => {
    llm.enqueue({ kind: 'text', text: 'OK' })
    const result = await testConnection({
      provider: 'openai-compatible',
      model: 'fake-model',
      baseUrl: llm.baseUrl,
    })
    expect(result.ok).toBe(true)
    expect(result.message).toMatch(/^Connected to fake-model in \d+ ms — it replied "OK"\.$/)
  })

  it('explains a 401 in plain words', async () => {
    llm.apiKey = 'sk-right'
    const result = await testConnection({
      provider: 'openai-compatible',
      model: 'fake-model',
      baseUrl: llm.baseUrl,
      apiKey: 'sk-wrong',
    })
    llm.apiKey = null
    expect(result.ok).toBe(false)
    expect(result.message).toContain('The provider refused the API key (401)')
    expect(result.message).toContain('Incorrect API key provided.')
    expect(result.message).not.toContain('sk-wrong')
  })

  it('explains a 404 as an unknown model', async () => {
    llm.enqueue({ kind: 'error', status: 404, body: { error: { message: 'model "nope" not found' } } })
    const result = await testConnection({
      provider: 'openai-compatible',
      model: 'nope',
      baseUrl: llm.baseUrl,
    })
    expect(result.message).toContain('does not know the model "nope"')
  })

  it('explains a refused connection', async () => {
    const port = await closedPort()
    const result = await testConnection({
      provider: 'openai-compatible',
      model: 'm',
      baseUrl: `http://127.0.0.1:${port}/v1`,
    })
    expect(result).toMatchObject({
      ok: false,
      message: `Nothing is listening at http://127.0.0.1:${port}/v1 (connection refused). Is the server running?`,
    })
  })

  it('asks for a key before calling a hosted provider without one', async () => {
    const result = await testConnection({ provider: 'anthropic', model: 'claude', apiKey: null })
    expect(result).toMatchObject({ ok: false, message: expect.stringContaining('No API key for anthropic') })
  })

  it('finds local servers and lists their models, silently skipping absent ones', async () => {
    const port = await closedPort()
    const log = memoryLogger()
    const found = await detectLocalServers(
      [
        { name: 'Fake', baseUrl: llm.baseUrl },
        { name: 'Absent', baseUrl: `http://127.0.0.1:${port}/v1` },
      ],
      log,
    )
    expect(log.lines).toEqual([])
    expect(found).toEqual([
      { name: 'Fake', baseUrl: llm.baseUrl, models: ['fake-model', 'fake-model-large'] },
    ])
  })
})
