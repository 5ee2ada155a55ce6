import { createServer, type Server } from 'node:http'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { AddressInfo } from 'node:net'
import { startOllamaServer, type OllamaContext, type OllamaServer } from '../../fixtures/wire/ollamaServer'
import { runCli } from '../../helpers/cli'
import { makeTempDir } from '../../helpers/tempDir'
import { parsed, say, tools } from '../loop/harness'

type Event = { type: string; windowTokens?: number; usedTokens?: number; reason?: string }

// A file far larger than any window here: 3,000 numbered lines of 60 characters (~45k tokens).
const bigFile = Array.from({ length: 3000 }, (_, i) => `line ${i + 1}: ${'x'.repeat(50)}`).join('\n')

const events = (stdout: string) =>
  stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Event)

// CLI processes run whole tasks against the Ollama wire fake: the budget holds on a loaded 2-core machine.
describe(
  'local models get their context (the CLI against the Ollama wire fake)',
  { timeout: 120_000 },
  () => {
    let ollama: OllamaServer
    let project: ReturnType<typeof makeTempDir>
    let home: ReturnType<typeof makeTempDir>
    beforeAll(async () => {
      ollama = await startOllamaServer({
        models: [
          { name: 'llama3.1:latest', arch: 'llama', contextLength: 131_072 },
          { name: 'llama3:8b', arch: 'llama', contextLength: 8_192 },
          { name: 'qwen3:8b-40k', arch: 'qwen3', contextLength: 40_960, numCtx: 40_960 },
        ],
      })
    })
    afterAll(() => ollama.close())
    beforeEach(() => {
      ollama.requests.length = 0
      ollama.fallback = say('Nothing more.')
      project = makeTempDir('ralph-project-')
      home = makeTempDir('ralph-home-')
    })
    afterEach(() => {
      project.cleanup()
      home.cleanup()
    })

    const chats = () => ollama.requests.filter((r) => r.path === '/api/chat')
    const contexts = () => chats().map((r) => r.notes.context as OllamaContext)
    /** The window the loop budgeted, as its note on the cut tool result says it to the model. */
    const budgetNoted = (tokens: number) =>
      chats().some((r) =>
        JSON.stringify(r.body).includes(`did not fit this iteration's context budget (${tokens} tokens)`),
      )

    /** A bugfix task whose first iteration reads the big file, fills its budget (cut results) and checkpoints. */
    async function runBigFileTask(model: string, extraEnv: NodeJS.ProcessEnv = {}, reads = 1) {
      writeFileSync(join(project.path, 'big.txt'), bigFile)
      // read_file caps what one call returns (~29k tokens here): a larger window needs more reads to fill it.
      const read: [string, Record<string, unknown>] = ['read_file', { path: 'big.txt' }]
      ollama.enqueue(
        parsed({ type: 'bugfix' }),
        tools(...Array.from({ length: reads }, () => read)),
        say('**Done:** read big.txt, it is long.\n**Next:** fix line 42 only (read_file offset 40 limit 5).'),
        tools(
          ['write_file', { path: 'fix.txt', content: 'fixed line 42' }],
          ['mark_complete', { summary: 'Fixed line 42 as the checkpoint said.' }],
        ),
      )
      const result = await runCli(
        [
          'run',
          'fix line 42 of big.txt',
          '--json',
          '--provider',
          'ollama',
          '--base-url',
          ollama.url,
          '--model',
          model,
          '--project',
          project.path,
        ],
        { env: { RALPH_HOME: home.path, RALPH_API_KEY: '', ...extraEnv } },
      )
      return { ...result, events: events(result.stdout) }
    }

    it('runs a whole task on the native API with num_ctx = the budget on every call, nothing cut', async () => {
      const result = await runBigFileTask('llama3.1')
      expect(result.stderr).toBe('')
      expect(result.code).toBe(0)
      expect(result.events.at(-1)?.type).toBe('task.completed')

      // Only the native API: parse, the step that read the file, the checkpoint, the second iteration.
      expect(ollama.requests.some((r) => r.path.startsWith('/v1/'))).toBe(false)
      expect(chats().length).toBeGreaterThanOrEqual(4)
      // llama3.1 is trained for 128K; without a Modelfile or a user maximum Ralph asks for 32K (memory), not 128K.
      const numCtx = chats().map((r) => (r.body as { options?: { num_ctx?: unknown } }).options?.num_ctx)
      expect(new Set(numCtx)).toEqual(new Set([32_768]))
      for (const context of contexts()) {
        expect(context).toMatchObject({
          numCtx: 32_768,
          source: 'options',
          droppedMessages: [],
          systemKept: true,
        })
        expect(context.frontTokensDropped).toBe(0)
        expect(context.keptTokens).toBe(context.promptTokens)
        expect(context.promptTokens).toBeLessThanOrEqual(32_768)
      }
      // The loop budgeted exactly the window it sent: the checkpoint reports it.
      const checkpoint = result.events.find((e) => e.type === 'checkpoint.written')
      expect(checkpoint).toMatchObject({ reason: 'budget', windowTokens: 32_768 })
      expect(checkpoint!.usedTokens).toBeLessThanOrEqual(32_768)
      expect(budgetNoted(32_768)).toBe(true)
      // The server is asked once per model for the whole process, not per call.
      expect(ollama.requests.filter((r) => r.path === '/api/show')).toHaveLength(1)
    })

    it('takes the Modelfile’s num_ctx, and caps every window at the user’s maximum', async () => {
      const own = await runBigFileTask('qwen3:8b-40k', {}, 2)
      expect(own.events.find((e) => e.type === 'checkpoint.written')).toMatchObject({ windowTokens: 40_960 })
      expect(own.code).toBe(0)
      expect(budgetNoted(40_960)).toBe(true)
      expect(contexts().every((c) => c.numCtx === 40_960 && c.source === 'options')).toBe(true)
      expect(contexts().every((c) => c.frontTokensDropped === 0 && c.droppedMessages.length === 0)).toBe(true)

      ollama.requests.length = 0
      project.cleanup()
      project = makeTempDir('ralph-project-')
      const capped = await runBigFileTask('qwen3:8b-40k', { RALPH_LOCAL_CONTEXT_MAX: '20k' })
      expect(budgetNoted(20_000)).toBe(true)
      expect(capped.code).toBe(0)
      expect(capped.events.find((e) => e.type === 'checkpoint.written')).toMatchObject({
        windowTokens: 20_000,
      })
      expect(contexts().every((c) => c.numCtx === 20_000 && c.frontTokensDropped === 0)).toBe(true)
    })

    it('an 8K model: num_ctx 8192, budget 8192, and config test warns with how to raise it', async () => {
      const result = await runBigFileTask('llama3:8b')
      expect(result.code).toBe(0)
      expect(result.events.find((e) => e.type === 'checkpoint.written')).toMatchObject({
        windowTokens: 8_192,
      })
      expect(budgetNoted(8_192)).toBe(true)
      for (const context of contexts()) {
        expect(context).toMatchObject({ numCtx: 8_192, source: 'options', droppedMessages: [] })
        expect(context.frontTokensDropped).toBe(0)
      }

      const env = {
        RALPH_HOME: home.path,
        RALPH_PROVIDER: 'ollama',
        RALPH_MODEL: 'llama3:8b',
        RALPH_BASE_URL: ollama.url,
        RALPH_API_KEY: '',
      }
      ollama.requests.length = 0
      ollama.enqueue(say('OK'))
      const test = await runCli(['config', 'test'], { env })
      expect(test.code).toBe(0)
      expect(test.stdout).toMatch(
        /^Connected to llama3:8b in \d+ ms — it replied "OK"\. Context window: 8192 tokens \(sent to Ollama as num_ctx\)\.\n$/,
      )
      expect(test.stderr).toContain(
        'Warning: llama3:8b runs with a 8192-token context window, under the 16384',
      )
      expect(test.stderr).toContain('trained for 8192 tokens')
      expect((chats()[0]!.body as { options: { num_ctx: number } }).options.num_ctx).toBe(8_192)

      const json = await runCli(['config', 'test', '--json'], { env })
      expect(JSON.parse(json.stdout)).toMatchObject({
        ok: true,
        result: {
          contextWindow: 8_192,
          warning: expect.stringContaining('pick a model with a longer context'),
        },
      })

      // A big enough model: no warning.
      ollama.enqueue(say('OK'))
      const fine = await runCli(['config', 'test'], { env: { ...env, RALPH_MODEL: 'llama3.1' } })
      expect(fine.code).toBe(0)
      expect(fine.stdout).toContain('Context window: 32768 tokens')
      expect(fine.stderr).toBe('')
    })

    it('migrates a saved Ollama /v1 address to the native provider, and strips /v1 from an ollama base URL', async () => {
      const env = { RALPH_HOME: home.path, RALPH_API_KEY: '' }
      expect((await runCli(['config', 'set', 'provider', 'openai-compatible'], { env })).code).toBe(0)
      expect((await runCli(['config', 'set', 'model', 'llama3.1'], { env })).code).toBe(0)
      expect((await runCli(['config', 'set', 'baseUrl', 'http://127.0.0.1:11434/v1'], { env })).code).toBe(0)
      const got = await runCli(['config', 'get', '--json'], { env })
      expect(JSON.parse(got.stdout)).toMatchObject({
        settings: { provider: 'ollama', model: 'llama3.1', baseUrl: 'http://127.0.0.1:11434' },
      })

      // The fake is not on Ollama's port, so the old address form is shown with the ollama provider: /v1 goes.
      ollama.enqueue(say('OK'))
      const test = await runCli(['config', 'test'], {
        env: { ...env, RALPH_PROVIDER: 'ollama', RALPH_BASE_URL: `${ollama.url}/v1` },
      })
      expect(test.code).toBe(0)
      expect(ollama.requests.map((r) => r.path)).toEqual(['/api/show', '/api/chat'])
      expect((chats()[0]!.body as { options: { num_ctx: number } }).options.num_ctx).toBe(32_768)
    })

    it('sets, shows and refuses bad values of localContextMax', async () => {
      const env = { RALPH_HOME: home.path }
      expect((await runCli(['config', 'set', 'localContextMax', '64k'], { env })).code).toBe(0)
      expect((await runCli(['config', 'get', 'localContextMax'], { env })).stdout).toBe('64000\n')
      const bad = await runCli(['config', 'set', 'localContextMax', 'lots'], { env })
      expect(bad.code).toBe(2)
      expect(bad.stderr).toContain('at least 1024')
      expect((await runCli(['config', 'unset', 'localContextMax'], { env })).code).toBe(0)
      expect((await runCli(['config', 'get', 'localContextMax'], { env })).stdout).toContain('not set')
    })
  },
)

/** A tiny LM Studio: its REST API's model list and a chat-completions answer. */
async function startLmStudio(model: Record<string, unknown>): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/api/v0/models') {
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ object: 'list', data: [model] }))
      return
    }
    if (req.method === 'POST' && req.url === '/v1/chat/completions') {
      req.resume()
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json' })
        res.end(
          JSON.stringify({
            id: 'chatcmpl-1',
            object: 'chat.completion',
            created: 1_767_225_600,
            model: model.id,
            choices: [{ index: 0, message: { role: 'assistant', content: 'OK' }, finish_reason: 'stop' }],
            usage: { prompt_tokens: 10, completion_tokens: 1, total_tokens: 11 },
          }),
        )
      })
      return
    }
    res.writeHead(404, { 'content-type': 'application/json' })
    res.end(JSON.stringify({ error: `Unexpected endpoint or method. (${req.method} ${req.url})` }))
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server }
}

describe('LM Studio’s loaded context', { timeout: 120_000 }, () => {
  let home: ReturnType<typeof makeTempDir>
  beforeEach(() => {
    home = makeTempDir('ralph-home-')
  })
  afterEach(() => home.cleanup())

  it('config test reads the loaded context length and says how to raise a small one', async () => {
    const id = 'qwen2.5-coder-7b-instruct'
    const lm = await startLmStudio({
      id,
      object: 'model',
      type: 'llm',
      state: 'loaded',
      max_context_length: 32_768,
      loaded_context_length: 12_288,
    })
    try {
      const env = {
        RALPH_HOME: home.path,
        RALPH_PROVIDER: 'openai-compatible',
        RALPH_MODEL: id,
        RALPH_BASE_URL: `${lm.url}/v1`,
        RALPH_API_KEY: '',
        RALPH_LOCAL_SERVERS: `LM Studio=${lm.url}/v1`,
      }
      const test = await runCli(['config', 'test'], { env })
      expect(test.code).toBe(0)
      expect(test.stdout).toContain('Context window: 12288 tokens (as LM Studio reports it).')
      expect(test.stderr).toContain('LM Studio loaded it with that context length')
      expect(test.stderr).toContain(`lms load ${id} --context-length 32768`)
    } finally {
      await new Promise<void>((r) => lm.server.close(() => r()))
    }
  })
})
