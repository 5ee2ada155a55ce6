import { memoryLogger } from '../workspace/logFile'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startOllamaServer, type OllamaServer } from '../../../tests/fixtures/wire/ollamaServer'
import { detectLocalServers, localCandidates } from './localServers'

describe('local servers', () => {
  let ollama: OllamaServer
  beforeAll(async () => {
    ollama = await startOllamaServer()
  })
  afterAll(() => ollama.close())

  it('offers Ollama through its native API and LM Studio through chat completions', () => {
    expect(localCandidates({})).toEqual([
      { name: 'Ollama', baseUrl: 'http://127.0.0.1:11434', provider: 'ollama' },
      { name: 'LM Studio', baseUrl: 'http://127.0.0.1:1234/v1' },
    ])
    // A server named Ollama in the variable is the native provider, even given with the old /v1.
    expect(
      localCandidates({ RALPH_LOCAL_SERVERS: 'ollama=http://gpu:11434/v1,Other=http://x:8000/v1' }),
    ).toEqual([
      { name: 'ollama', baseUrl: 'http://gpu:11434', provider: 'ollama' },
      { name: 'Other', baseUrl: 'http://x:8000/v1' },
    ])
  })

  it('lists an Ollama server’s models from /api/tags', async () => {
    const found = await detectLocalServers(
      localCandidates({ RALPH_LOCAL_SERVERS: `Ollama=${ollama.baseUrl}` }),
      memoryLogger(),
    )
    expect(found).toEqual([
      {
        name: 'Ollama',
        baseUrl: ollama.url,
        provider: 'ollama',
        models: ['llama3.1:latest', 'qwen3:8b-40k'],
      },
    ])
    expect(ollama.requests.map((r) => r.path)).toEqual(['/api/tags'])
  })
})
