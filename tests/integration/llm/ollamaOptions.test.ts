import { generateText } from 'ai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createModel } from '../../../src/main/llm/createModel'
import { startOllamaServer, type OllamaServer } from '../../fixtures/wire/ollamaServer'

// Ollama reads the output cap and temperature only inside `options` (num_predict, temperature); the provider
// package puts them at the top level of the body. Real provider code over HTTP to the Ollama wire fake.
describe('ollama request options', () => {
  let ollama: OllamaServer
  beforeAll(async () => {
    ollama = await startOllamaServer()
  })
  afterAll(() => ollama.close())

  it('sends num_ctx, num_predict and temperature in options', async () => {
    ollama.enqueue({ kind: 'text', text: 'OK' })
    const model = createModel({ provider: 'ollama', model: 'llama3.1', baseUrl: ollama.url })
    const result = await generateText({ model, prompt: 'Say OK', maxOutputTokens: 321, temperature: 0 })
    expect(result.text).toBe('OK')
    const chat = ollama.requests.find((r) => r.path === '/api/chat')!
    const options = (chat.body as { options: Record<string, unknown> }).options
    expect(options).toMatchObject({ num_predict: 321, temperature: 0 })
    expect(options.num_ctx).toEqual(expect.any(Number))
  })

  it('leaves them out when the call sets none', async () => {
    ollama.requests.length = 0
    ollama.enqueue({ kind: 'text', text: 'OK' })
    const model = createModel({ provider: 'ollama', model: 'llama3.1', baseUrl: ollama.url })
    await generateText({ model, prompt: 'Say OK' })
    const options = (ollama.requests.find((r) => r.path === '/api/chat')!.body as { options: object }).options
    expect(options).not.toHaveProperty('num_predict')
    expect(options).toHaveProperty('num_ctx')
  })
})
