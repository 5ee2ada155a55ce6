import { memoryLogger } from '../../../src/main/workspace/logFile'
import v8 from 'node:v8'
import vm from 'node:vm'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { isAppError } from '../../../src/shared/errors'
import type { ModelConfig } from '../../../src/main/llm/createModel'
import { callJson, runModelTurn, toolResultMessage } from '../../../src/main/llm/modelTurn'
import { startFakeLlmServer, type FakeLlmServer } from '../../fixtures/fakeLlmServer'

let server: FakeLlmServer
let model: ModelConfig
const fast = { baseDelayMs: 10, maxDelayMs: 50, jitter: 0 }
/** The chat-completions fake reports no prompt cache and no reasoning. */
const noCache = { cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 }

const tools = {
  read_file: {
    description: 'Read a file',
    inputSchema: z.object({ path: z.string(), offset: z.number().optional() }),
  },
  write_file: {
    description: 'Write a file',
    inputSchema: z.object({ path: z.string(), content: z.string() }),
  },
}

beforeAll(async () => {
  server = await startFakeLlmServer()
  model = { provider: 'openai-compatible', model: 'fake-model', baseUrl: server.baseUrl, apiKey: null }
})
afterAll(async () => {
  await server.close()
})
beforeEach(() => {
  server.requests.length = 0
})

function chatRequests() {
  return server.requests.filter((r) => r.path === '/v1/chat/completions')
}

async function rejection(p: Promise<unknown>): Promise<unknown> {
  try {
    await p
  } catch (err) {
    return err
  }
  throw new Error('expected a rejection')
}

const base = () => ({
  logger: memoryLogger(),
  model,
  system: 'You are Ralph.',
  messages: [{ role: 'user' as const, content: 'Hello' }],
  tools,
  signal: new AbortController().signal,
  retry: fast,
})

describe('runModelTurn', () => {
  it('streams text deltas and returns the text, usage and an assistant message', async () => {
    server.enqueue({ kind: 'text', text: 'The quick brown fox jumps over the lazy dog, twice over.' })
    const deltas: string[] = []
    const result = await runModelTurn({ ...base(), onTextDelta: (t) => deltas.push(t) })
    expect(deltas.length).toBeGreaterThan(1)
    expect(deltas.join('')).toBe('The quick brown fox jumps over the lazy dog, twice over.')
    expect(result.text).toBe(deltas.join(''))
    expect(result.toolCalls).toEqual([])
    expect(result.usage).toEqual({ ...noCache, inputTokens: 10, outputTokens: 5 })
    expect(result.finishReason).toBe('stop')
    expect(result.responseMessages).toHaveLength(1)
    expect(result.responseMessages[0]!.role).toBe('assistant')
    const body = chatRequests()[0]!.body as { stream: boolean; tools: { function: { name: string } }[] }
    expect(body.stream).toBe(true)
    expect(body.tools.map((t) => t.function.name)).toEqual(['read_file', 'write_file'])
  })

  it('returns tool calls with parsed input, and the conversation continues with tool results', async () => {
    server.enqueue({
      kind: 'tools',
      text: 'Let me look.',
      calls: [
        { name: 'read_file', arguments: { path: 'src/a.ts' } },
        { name: 'write_file', arguments: { path: 'b.txt', content: 'hi' } },
      ],
    })
    const result = await runModelTurn(base())
    expect(result.finishReason).toBe('tool-calls')
    expect(result.text).toBe('Let me look.')
    expect(result.toolCalls.map(({ toolName, input }) => ({ toolName, input }))).toEqual([
      { toolName: 'read_file', input: { path: 'src/a.ts' } },
      { toolName: 'write_file', input: { path: 'b.txt', content: 'hi' } },
    ])
    expect(result.toolCalls.every((c) => c.invalidReason === undefined)).toBe(true)
    expect(result.responseMessages.every((m) => m.role === 'assistant')).toBe(true)

    server.enqueue({ kind: 'text', text: 'Done.' })
    const next = await runModelTurn({
      ...base(),
      messages: [
        { role: 'user', content: 'Hello' },
        ...result.responseMessages,
        toolResultMessage([
          { toolCallId: result.toolCalls[0]!.toolCallId, toolName: 'read_file', output: '1 | x' },
          {
            toolCallId: result.toolCalls[1]!.toolCallId,
            toolName: 'write_file',
            output: 'no',
            isError: true,
          },
        ]),
      ],
    })
    expect(next.text).toBe('Done.')
    const sent = (chatRequests().at(-1)!.body as { messages: { role: string; tool_call_id?: string }[] })
      .messages
    expect(sent.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'tool'])
    expect(sent[3]!.tool_call_id).toBe(result.toolCalls[0]!.toolCallId)
  })

  it('reports an unknown tool or bad input as an invalid call instead of failing the turn', async () => {
    server.enqueue({
      kind: 'tools',
      calls: [
        { name: 'delete_everything', arguments: {} },
        { name: 'read_file', arguments: { nope: 1 } },
      ],
    })
    const result = await runModelTurn(base())
    expect(result.toolCalls).toHaveLength(2)
    expect(result.toolCalls[0]!.invalidReason).toMatch(/delete_everything/)
    expect(result.toolCalls[1]!.invalidReason).toBeTruthy()
    expect(result.responseMessages.every((m) => m.role === 'assistant')).toBe(true)
  })

  it('retries a 500 twice, then succeeds', async () => {
    server.enqueue(
      { kind: 'error', status: 500 },
      { kind: 'error', status: 503 },
      { kind: 'text', text: 'ok' },
    )
    const retries: { attempt: number; reason: string }[] = []
    const result = await runModelTurn({ ...base(), onRetry: (i) => retries.push(i) })
    expect(result.text).toBe('ok')
    expect(result.retries).toBe(2)
    expect(retries.map((r) => [r.attempt, r.reason])).toEqual([
      [1, 'HTTP 500'],
      [2, 'HTTP 503'],
    ])
    expect(chatRequests()).toHaveLength(3)
  })

  it('retries a dropped connection', async () => {
    server.enqueue({ kind: 'disconnect' }, { kind: 'text', text: 'back' })
    const retries: string[] = []
    const result = await runModelTurn({ ...base(), onRetry: (i) => retries.push(i.reason) })
    expect(result.text).toBe('back')
    expect(retries).toHaveLength(1)
    expect(retries[0]).toMatch(/network/)
  })

  it('honours Retry-After on 429', async () => {
    server.enqueue(
      { kind: 'error', status: 429, headers: { 'retry-after': '1' } },
      { kind: 'text', text: 'after the wait' },
    )
    const delays: number[] = []
    const started = performance.now()
    const result = await runModelTurn({ ...base(), onRetry: (i) => delays.push(i.delayMs) })
    expect(performance.now() - started).toBeGreaterThanOrEqual(900)
    expect(delays).toEqual([1000])
    expect(result.text).toBe('after the wait')
  })

  it('gives up after the retries are used up, in plain words', async () => {
    server.enqueue(...Array.from({ length: 3 }, () => ({ kind: 'error' as const, status: 502 })))
    const err = await rejection(runModelTurn({ ...base(), retry: { ...fast, maxRetries: 2 } }))
    expect(isAppError(err, 'provider')).toBe(true)
    expect((err as Error).message).toMatch(/failed with an error \(502\)/)
    expect(chatRequests()).toHaveLength(3)
  })

  it('fails at once on 401 with a plain-words message and no retry', async () => {
    server.enqueue({
      kind: 'error',
      status: 401,
      body: { error: { message: 'Incorrect API key provided.' } },
    })
    const retries: unknown[] = []
    const err = await rejection(runModelTurn({ ...base(), onRetry: (i) => retries.push(i) }))
    expect(isAppError(err, 'provider')).toBe(true)
    expect((err as Error).message).toMatch(/refused the API key \(401\)/)
    expect((err as Error).message).toMatch(/Incorrect API key provided/)
    expect(retries).toEqual([])
    expect(chatRequests()).toHaveLength(1)
  })

  it('fails at once on 404 (bad model)', async () => {
    server.enqueue({ kind: 'error', status: 404, body: { error: { message: 'model "nope" not found' } } })
    const err = await rejection(runModelTurn({ ...base(), model: { ...model, model: 'nope' } }))
    expect(isAppError(err, 'provider')).toBe(true)
    expect((err as Error).message).toMatch(/does not know the model "nope"/)
    expect(chatRequests()).toHaveLength(1)
  })

  it('fails at once on 400', async () => {
    server.enqueue({ kind: 'error', status: 400, body: { error: { message: 'context too long' } } })
    const err = await rejection(runModelTurn(base()))
    expect((err as Error).message).toMatch(/rejected the request \(400\).*context too long/)
    expect(chatRequests()).toHaveLength(1)
  })

  it('cancels promptly during a streaming reply', async () => {
    server.enqueue({ kind: 'stall', text: 'I am thinking about it' })
    const controller = new AbortController()
    const deltas: string[] = []
    const turn = runModelTurn({
      ...base(),
      signal: controller.signal,
      onTextDelta: (t) => {
        deltas.push(t)
        if (deltas.join('') === 'I am thinking about it') setTimeout(() => controller.abort(), 20)
      },
    })
    const started = performance.now()
    const err = await rejection(turn)
    expect(isAppError(err, 'cancelled')).toBe(true)
    expect(deltas.join('')).toBe('I am thinking about it')
    expect(performance.now() - started).toBeLessThan(2000)
    expect(chatRequests()).toHaveLength(1)
  })

  it('cancels during a hanging request', async () => {
    server.enqueue({ kind: 'hang' })
    const controller = new AbortController()
    setTimeout(() => controller.abort(), 100)
    const err = await rejection(runModelTurn({ ...base(), signal: controller.signal }))
    expect(isAppError(err, 'cancelled')).toBe(true)
  })

  it('cancels during a backoff wait', async () => {
    server.enqueue({ kind: 'error', status: 429, headers: { 'retry-after': '30' } })
    const controller = new AbortController()
    const started = performance.now()
    const err = await rejection(
      runModelTurn({
        ...base(),
        signal: controller.signal,
        onRetry: () => setTimeout(() => controller.abort(), 50),
      }),
    )
    expect(isAppError(err, 'cancelled')).toBe(true)
    expect(performance.now() - started).toBeLessThan(2000)
    expect(chatRequests()).toHaveLength(1)
  })

  it('retries a request that goes silent before any output, but not one that stalls mid-text', async () => {
    server.enqueue({ kind: 'hang' }, { kind: 'text', text: 'second try' })
    const reasons: string[] = []
    const ok = await runModelTurn({ ...base(), idleTimeoutMs: 200, onRetry: (i) => reasons.push(i.reason) })
    expect(ok.text).toBe('second try')
    expect(reasons[0]).toMatch(/timeout/)

    server.enqueue({ kind: 'stall', text: 'half an ans' })
    const deltas: string[] = []
    const err = await rejection(
      runModelTurn({ ...base(), idleTimeoutMs: 200, onTextDelta: (t) => deltas.push(t) }),
    )
    expect(isAppError(err, 'provider')).toBe(true)
    expect((err as Error).message).toMatch(/did not answer in time/)
    expect(deltas.join('')).toBe('half an ans')
  })
})

describe('callJson', () => {
  const schema = z.object({ name: z.string().min(1), count: z.number().int() })
  const call = () =>
    callJson({
      model,
      system: 'Answer with JSON only.',
      prompt: 'Give me a JSON object.',
      schema,
      signal: new AbortController().signal,
      retry: fast,
    })

  it('parses a valid JSON reply and asks for JSON mode', async () => {
    server.enqueue({ kind: 'json', value: { name: 'x', count: 2 } })
    const result = await call()
    expect(result.value).toEqual({ name: 'x', count: 2 })
    expect(result.usage).toEqual({ ...noCache, inputTokens: 10, outputTokens: 5 })
    const body = chatRequests()[0]!.body as { response_format?: { type: string }; tools?: unknown }
    expect(body.response_format?.type).toMatch(/json/)
    expect(body.tools).toBeUndefined()
  })

  it('tolerates a ```json fence', async () => {
    server.enqueue({ kind: 'json', value: { name: 'fenced', count: 1 }, fenced: true })
    expect((await call()).value).toEqual({ name: 'fenced', count: 1 })
  })

  it('rejects text that is not JSON with a clear provider error', async () => {
    server.enqueue({ kind: 'text', text: 'Sure! Here is your task: make it nice.' })
    const err = await rejection(call())
    expect(isAppError(err, 'provider')).toBe(true)
    expect((err as Error).message).toMatch(/did not answer with JSON.*Sure! Here is your task/)
  })

  it('rejects JSON of the wrong shape, naming the field', async () => {
    server.enqueue({ kind: 'json', value: { name: '', count: 'two' } })
    const err = await rejection(call())
    expect(isAppError(err, 'provider')).toBe(true)
    expect((err as Error).message).toMatch(/does not match the expected shape.*count/)
  })

  it('repeats the call without response_format when the server refuses it', async () => {
    server.enqueue(
      {
        kind: 'error',
        status: 400,
        body: { error: { message: "'response_format.type' must be 'json_schema'" } },
      },
      { kind: 'json', value: { name: 'plain', count: 3 } },
    )
    expect((await call()).value).toEqual({ name: 'plain', count: 3 })
    const bodies = chatRequests().map((r) => r.body as { response_format?: unknown })
    expect(bodies).toHaveLength(2)
    expect(bodies[1]!.response_format).toBeUndefined()
  })

  it('retries 5xx and fails at once on 401', async () => {
    server.enqueue({ kind: 'error', status: 500 }, { kind: 'json', value: { name: 'y', count: 0 } })
    expect((await call()).value.name).toBe('y')
    server.enqueue({ kind: 'error', status: 401 })
    const err = await rejection(call())
    expect((err as Error).message).toMatch(/401/)
  })

  it('is cancelled by the signal', async () => {
    server.enqueue({ kind: 'hang' })
    const controller = new AbortController()
    setTimeout(() => controller.abort(), 50)
    const err = await rejection(
      callJson({ model, system: 's', prompt: 'p', schema, signal: controller.signal, retry: fast }),
    )
    expect(isAppError(err, 'cancelled')).toBe(true)
  })

  it('times out as a provider error', async () => {
    server.enqueue({ kind: 'hang' })
    const err = await rejection(
      callJson({
        model,
        system: 's',
        prompt: 'p',
        schema,
        signal: new AbortController().signal,
        timeoutMs: 150,
      }),
    )
    expect(isAppError(err, 'provider')).toBe(true)
    expect((err as Error).message).toMatch(/did not answer within/)
  })

  it('times out although the collector runs meanwhile (a timeout held only by AbortSignal.any never fired)', async () => {
    v8.setFlagsFromString('--expose_gc')
    const gc = vm.runInNewContext('gc') as () => void
    server.enqueue({ kind: 'hang' })
    const collect = setInterval(gc, 10)
    try {
      const err = await rejection(
        callJson({
          model,
          system: 's',
          prompt: 'p',
          schema,
          signal: new AbortController().signal,
          timeoutMs: 300,
        }),
      )
      expect((err as Error).message).toMatch(/did not answer within/)
    } finally {
      clearInterval(collect)
    }
  }, 15_000)
})
