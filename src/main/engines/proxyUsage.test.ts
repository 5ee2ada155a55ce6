import { afterEach, describe, expect, it } from 'vitest'
import { startAnthropicServer } from '../../../tests/fixtures/wire/anthropicServer'
import { startResponsesServer } from '../../../tests/fixtures/wire/responsesServer'
import type { WireServer } from '../../../tests/fixtures/wire/shared'
import { usageReader, type CallUsage, type ModelWire } from './proxyUsage'

/** Feeds a body to a reader in pieces of `size` bytes (a line, or a character, split across chunks). */
function readInPieces(wire: ModelWire, contentType: string, body: Buffer, size: number): CallUsage | null {
  const reader = usageReader(wire, contentType)
  for (let at = 0; at < body.length; at += size) reader.push(body.subarray(at, at + size))
  return reader.end()
}

const servers: WireServer[] = []
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close()
})

async function answer(url: string, body: object, headers: Record<string, string>) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  })
  return { contentType: res.headers.get('content-type') ?? '', body: Buffer.from(await res.arrayBuffer()) }
}

describe("a model call's usage read from its answer as it passes", () => {
  it("Anthropic's Messages SSE and JSON: the prompt from message_start, the answer from message_delta, cache counts added", async () => {
    const server = await startAnthropicServer({ minCacheableTokens: 10 })
    servers.push(server)
    server.enqueue(
      { kind: 'tools', calls: [{ name: 'Bash', arguments: { command: 'ls — ünïcode ✓' } }] },
      { kind: 'text', text: 'Done — ✓.' },
    )
    const request = (stream: boolean) => ({
      model: 'claude-sonnet-4-5',
      max_tokens: 100,
      stream,
      system: [{ type: 'text', text: 'You are helpful. '.repeat(20), cache_control: { type: 'ephemeral' } }],
      messages: [{ role: 'user', content: 'list the files' }],
    })
    const headers = { 'x-api-key': 'k', 'anthropic-version': '2023-06-01' }
    const streamed = await answer(`${server.baseUrl}/messages`, request(true), headers)
    const json = await answer(`${server.baseUrl}/messages`, request(false), headers)
    expect(streamed.contentType).toMatch(/event-stream/)
    const [first, second] = server.requests.map((r) => r.notes.usage as Record<string, number>)
    const expected = (u: Record<string, number>): CallUsage => ({
      model: 'claude-sonnet-4-5',
      inputTokens: u.input_tokens! + u.cache_read_input_tokens! + u.cache_creation_input_tokens!,
      outputTokens: u.output_tokens!,
      cacheReadTokens: u.cache_read_input_tokens!,
      cacheWriteTokens: u.cache_creation_input_tokens!,
      cacheWrite1hTokens: 0,
    })
    // The cache was written by the first call and read by the second: both counts are carried.
    expect(first!.cache_creation_input_tokens).toBeGreaterThan(0)
    expect(second!.cache_read_input_tokens).toBeGreaterThan(0)
    for (const size of [1, 7, 64, streamed.body.length])
      expect(readInPieces('anthropic-messages', streamed.contentType, streamed.body, size)).toEqual(
        expected(first!),
      )
    expect(readInPieces('anthropic-messages', json.contentType, json.body, 5)).toEqual(expected(second!))
  })

  it("OpenAI's Responses SSE (response.completed) and JSON: every prompt token, the cached ones among them", async () => {
    const server = await startResponsesServer()
    servers.push(server)
    server.enqueue({ kind: 'text', text: 'First — ✓.' }, { kind: 'text', text: 'Second.' })
    const request = (stream: boolean) => ({
      model: 'gpt-5.1',
      stream,
      instructions: 'Be brief. '.repeat(600),
      input: [{ role: 'user', content: [{ type: 'input_text', text: 'hello' }] }],
    })
    const headers = { authorization: 'Bearer k' }
    const streamed = await answer(`${server.baseUrl}/responses`, request(true), headers)
    const json = await answer(`${server.baseUrl}/responses`, request(false), headers)
    const [first, second] = server.requests.map(
      (r) =>
        r.notes.usage as {
          input_tokens: number
          output_tokens: number
          input_tokens_details: { cached_tokens: number }
        },
    )
    const expected = (u: typeof first & object): CallUsage => ({
      model: 'gpt-5.1',
      inputTokens: u.input_tokens,
      outputTokens: u.output_tokens,
      cacheReadTokens: u.input_tokens_details.cached_tokens,
      cacheWriteTokens: 0,
      cacheWrite1hTokens: 0,
    })
    expect(second!.input_tokens_details.cached_tokens).toBeGreaterThan(0)
    for (const size of [1, 13, streamed.body.length])
      expect(readInPieces('openai-responses', streamed.contentType, streamed.body, size)).toEqual(
        expected(first!),
      )
    expect(readInPieces('openai-responses', json.contentType, json.body, 3)).toEqual(expected(second!))
  })

  it("a later message_delta's counts win; an incomplete answer bills its usage; no usage, or not JSON, is null", () => {
    const sse = (...events: object[]) =>
      Buffer.from(events.map((e) => `event: x\r\ndata: ${JSON.stringify(e)}\r\n\r\n`).join(''))
    const start = {
      type: 'message_start',
      message: {
        model: 'claude-opus-4-1',
        usage: { input_tokens: 10, cache_read_input_tokens: 5, output_tokens: 1 },
      },
    }
    const delta = {
      type: 'message_delta',
      usage: { output_tokens: 40, input_tokens: 12, cache_creation: { ephemeral_1h_input_tokens: 3 } },
    }
    expect(readInPieces('anthropic-messages', 'text/event-stream', sse(start, delta), 9)).toEqual({
      model: 'claude-opus-4-1',
      inputTokens: 17,
      outputTokens: 40,
      cacheReadTokens: 5,
      cacheWriteTokens: 0,
      cacheWrite1hTokens: 3,
    })
    // Cut off after its start: what was said of the prompt is billed.
    expect(readInPieces('anthropic-messages', 'text/event-stream', sse(start), 4)?.inputTokens).toBe(15)
    const incomplete = {
      type: 'response.incomplete',
      response: { model: 'gpt-5.1', usage: { input_tokens: 100, output_tokens: 16 } },
    }
    expect(
      readInPieces('openai-responses', 'text/event-stream; charset=utf-8', sse(incomplete), 50),
    ).toMatchObject({
      inputTokens: 100,
      outputTokens: 16,
      cacheReadTokens: 0,
    })
    expect(
      readInPieces('openai-responses', 'text/event-stream', sse({ type: 'response.created' }), 8),
    ).toBeNull()
    expect(readInPieces('anthropic-messages', 'text/html', Buffer.from('<h1>502</h1>'), 4)).toBeNull()
    expect(
      readInPieces('anthropic-messages', 'text/event-stream', Buffer.from('data: {"usage": nope\n'), 4),
    ).toBeNull()
  })
})
