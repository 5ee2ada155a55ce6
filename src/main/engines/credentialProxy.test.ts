import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { gzipSync } from 'node:zlib'
import { startAnthropicServer } from '../../../tests/fixtures/wire/anthropicServer'
import { startResponsesServer } from '../../../tests/fixtures/wire/responsesServer'
import { estimateCost } from '../llm'
import { memoryLogger } from '../workspace/logFile'
import { LoginUnusable, startCredentialProxy, upstreamUrl, type CredentialProxy } from './credentialProxy'
import { sessionMeter, type CapReached } from './proxyMeter'
import type { ModelWire } from './proxyUsage'

interface Seen {
  method: string
  url: string
  headers: IncomingHttpHeaders
  body: string
}

/** An upstream that records each request and streams two chunks, the second only once the first has arrived. */
async function upstream(): Promise<{ url: string; seen: Seen[]; second(): void; server: Server }> {
  const seen: Seen[] = []
  let release: () => void = () => undefined
  const server = createServer((req, res) => {
    let body = ''
    req.on('data', (c: Buffer) => (body += c.toString()))
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body })
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      res.write('data: first\n\n')
      release = () => res.end('data: second\n\n')
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    second: () => release(),
    server,
  }
}

function call(
  url: string,
  opts: {
    path?: string
    headers?: Record<string, string>
    onChunk?: (text: string) => void
    body?: string | Buffer
  } = {},
): Promise<{ status: number; body: string }> {
  return new Promise((done, fail) => {
    const req = request(
      `${url}${opts.path ?? '/v1/messages'}`,
      { method: 'POST', headers: opts.headers },
      (res) => {
        let body = ''
        res.setEncoding('utf8')
        res.on('data', (c: string) => {
          body += c
          opts.onChunk?.(c)
        })
        res.on('end', () => done({ status: res.statusCode ?? 0, body }))
      },
    )
    req.on('error', fail)
    req.end(opts.body ?? '{"model":"m"}')
  })
}

const closers: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const close of closers.splice(0)) await close()
})

async function setup(authHeaders: () => Promise<Record<string, string>>) {
  const up = await upstream()
  closers.push(() => new Promise((r) => up.server.close(() => r())))
  up.server.on('connection', (s) => closers.push(async () => void s.destroy()))
  const proxy: CredentialProxy = await startCredentialProxy({
    upstream: `${up.url}/gateway`,
    authHeaders,
    extraHeaders: { 'x-gateway': 'team' },
    logger: memoryLogger(),
  })
  closers.unshift(() => proxy.close())
  return { up, proxy }
}

describe("Ralph's credential proxy", () => {
  it('forwards only requests bearing the placeholder, with the real key swapped in, streaming as it comes', async () => {
    let key = 'sk-real-1'
    const { up, proxy } = await setup(async () => ({ 'x-api-key': key }))
    expect(proxy.placeholder).toMatch(/^ralph-session-[0-9a-f]{48}$/)

    // No key, a wrong key, the real key itself: refused, and the upstream hears nothing.
    const tries: Record<string, string>[] = [
      {},
      { 'x-api-key': 'ralph-session-guess' },
      { 'x-api-key': 'sk-real-1' },
    ]
    for (const headers of tries) {
      const r = await call(proxy.url, { headers })
      expect(r.status).toBe(401)
    }
    expect(up.seen).toEqual([])
    expect(proxy.refused).toBe(3)

    const chunks: string[] = []
    const answered = call(proxy.url, {
      path: '/v1/messages?beta=true',
      headers: { 'x-api-key': proxy.placeholder, 'anthropic-version': '2023-06-01' },
      onChunk: (c) => {
        chunks.push(c)
        // The second chunk is sent only after the first reached the client: nothing waits for the whole answer.
        if (chunks.length === 1) up.second()
      },
    })
    expect(await answered).toEqual({ status: 200, body: 'data: first\n\ndata: second\n\n' })
    expect(chunks[0]).toBe('data: first\n\n')
    expect(up.seen).toHaveLength(1)
    expect(up.seen[0]).toMatchObject({ url: '/gateway/v1/messages?beta=true', body: '{"model":"m"}' })
    expect(up.seen[0]!.headers).toMatchObject({
      'x-api-key': 'sk-real-1',
      'anthropic-version': '2023-06-01',
      'x-gateway': 'team',
    })
    expect(JSON.stringify(up.seen[0]!.headers)).not.toContain(proxy.placeholder)

    // Read at each call: a login refreshed meanwhile is the one used.
    key = 'sk-real-2'
    const bearer = call(proxy.url, { headers: { authorization: `Bearer ${proxy.placeholder}` } })
    await expect.poll(() => up.seen.length).toBe(2)
    up.second()
    await bearer
    expect(up.seen[1]!.headers['x-api-key']).toBe('sk-real-2')
    expect(up.seen[1]!.headers.authorization).toBeUndefined()
  })

  it('refuses a login it cannot use with a 401 that says why, and never acts as a forward proxy', async () => {
    const { up, proxy } = await setup(async () => {
      throw new LoginUnusable('Your login has expired: run `claude` once.')
    })
    const r = await call(proxy.url, { headers: { 'x-api-key': proxy.placeholder } })
    expect(r.status).toBe(401)
    expect(r.body).toContain('run `claude` once')
    expect(proxy.loginProblem).toBe('Your login has expired: run `claude` once.')
    expect(up.seen).toEqual([])
  })

  it('appends the request path to the upstream base path', () => {
    const base = new URL('https://api.openai.com/v1')
    expect(upstreamUrl(base, '/responses').href).toBe('https://api.openai.com/v1/responses')
    expect(upstreamUrl(new URL('https://gw.example/anthropic/'), '/v1/messages?beta=true').href).toBe(
      'https://gw.example/anthropic/v1/messages?beta=true',
    )
  })
})

/** A meter over a session's calls, with what it said. */
function meterOf(wire: ModelWire, capUsd: number, spentUsd = 0, boundsOutput = true) {
  const reached: CapReached[] = []
  const logger = memoryLogger()
  const meter = sessionMeter({
    wire,
    cap: { capUsd, spentUsd },
    engine: wire === 'anthropic-messages' ? 'claude-code' : 'codex',
    boundsOutput,
    logger,
    onReached: (r) => reached.push(r),
  })
  return { meter, reached, logger }
}

describe('the cost cap at the proxy', () => {
  it('Claude Code: the answer bounded, its usage counted as it passes, the next call refused with a 400 that says the cap', async () => {
    const server = await startAnthropicServer()
    closers.push(() => server.close())
    server.enqueue({ kind: 'tools', calls: [{ name: 'Bash', arguments: { command: 'echo one' } }] })
    // $0.02 with $0.009 spent, against Sonnet 4.5 ($3.75/M a written prompt, $15/M of answer): this prompt is about
    // 1,900 tokens as the cap counts it ($0.0072), leaving ~250 tokens of answer in place of the 32,000 asked for.
    const { meter, reached, logger } = meterOf('anthropic-messages', 0.02, 0.009)
    const proxy = await startCredentialProxy({
      upstream: server.url,
      authHeaders: async () => ({ 'x-api-key': 'sk-real' }),
      meter,
      logger,
    })
    closers.unshift(() => proxy.close())
    const request = JSON.stringify({
      model: 'claude-sonnet-4-5',
      max_tokens: 32_000,
      stream: true,
      system: 'You are a careful engineer. '.repeat(200),
      messages: [{ role: 'user', content: 'list the files' }],
    })
    const headers = {
      'x-api-key': proxy.placeholder,
      'anthropic-version': '2023-06-01',
      'content-type': 'application/json',
    }
    // Compressed, as a client may send it: read, bounded and forwarded plain.
    const first = await call(proxy.url, {
      path: '/v1/messages',
      headers: { ...headers, 'content-encoding': 'gzip' },
      body: gzipSync(request),
    })
    expect(first.status, first.body).toBe(200)
    expect(first.body).toContain('message_delta')
    const sent = server.requests[0]!.body as { max_tokens: number; system: string }
    const promptTokens = Math.ceil(Buffer.byteLength(request) / 3)
    expect(sent.max_tokens).toBe(Math.floor(((0.02 - 0.009 - (promptTokens * 3.75) / 1e6) * 1e6) / 15))
    expect(sent.system).toBe(JSON.parse(request).system)
    // Billed as the fake billed it.
    const bill = server.bills()[0]!
    const cost = estimateCost(
      'claude-sonnet-4-5',
      {
        inputTokens: bill.uncachedInput + bill.cacheRead + bill.cacheWrite,
        outputTokens: bill.output,
        cacheReadTokens: bill.cacheRead,
        cacheWriteTokens: bill.cacheWrite,
      },
      {},
      'claude-code',
    ).usd
    expect(meter.spentUsd).toBeCloseTo(0.009 + cost, 9)
    expect(reached).toEqual([])

    // The same prompt again: what is left no longer pays for it.
    const second = await call(proxy.url, { path: '/v1/messages', headers, body: request })
    expect(second.status).toBe(400)
    expect(JSON.parse(second.body)).toMatchObject({
      type: 'error',
      error: {
        type: 'invalid_request_error',
        message: expect.stringContaining("Ralph's cost cap of $0.02 is reached"),
      },
    })
    expect(server.requests).toHaveLength(1)
    expect(reached).toEqual([
      {
        capUsd: 0.02,
        spentUsd: meter.spentUsd,
        why: JSON.parse(second.body).error.message,
        // The call the session made, as the proxy read it: for an engine that never reports it.
        calls: [
          {
            model: 'claude-sonnet-4-5',
            inputTokens: bill.uncachedInput + bill.cacheRead + bill.cacheWrite,
            outputTokens: bill.output,
            cacheReadTokens: bill.cacheRead,
            cacheWriteTokens: bill.cacheWrite,
            cacheWrite1hTokens: 0,
          },
        ],
      },
    ])
    // Free calls still pass.
    expect(meter.meters('POST', '/v1/messages/count_tokens')).toBe(false)
  })

  it('Codex: a Responses call bounded by max_output_tokens and billed from response.completed; the ChatGPT backend only refused', async () => {
    const server = await startResponsesServer()
    closers.push(() => server.close())
    server.enqueue({ kind: 'text', text: 'Hello.' })
    const { meter, reached } = meterOf('openai-responses', 0.01)
    const proxy = await startCredentialProxy({
      upstream: server.baseUrl,
      authHeaders: async () => ({ authorization: 'Bearer sk-real' }),
      meter,
      logger: memoryLogger(),
    })
    closers.unshift(() => proxy.close())
    const body = JSON.stringify({
      model: 'gpt-5.1',
      stream: true,
      instructions: 'Be brief.',
      input: [{ role: 'user', content: [{ type: 'input_text', text: 'hi' }] }],
    })
    const headers = { authorization: `Bearer ${proxy.placeholder}`, 'content-type': 'application/json' }
    const r = await call(proxy.url, { path: '/responses', headers, body })
    expect(r.status, r.body).toBe(200)
    const sent = server.requests[0]!.body as { max_output_tokens: number }
    // $0.01 at $10/M of answer, less the prompt: under the ceiling, so it is set.
    expect(sent.max_output_tokens).toBeGreaterThan(900)
    expect(sent.max_output_tokens).toBeLessThan(1000)
    const bill = server.bills()[0]!
    expect(meter.spentUsd).toBeCloseTo(
      ((bill.uncachedInput + bill.cacheRead) * 1.25 + bill.output * 10) / 1e6,
      9,
    )
    expect(reached).toEqual([])

    // The ChatGPT backend refuses max_output_tokens: the call goes as it came, and is refused at the cap.
    const chatgpt = meterOf('openai-responses', 0.01, 0, false)
    const admitted = await chatgpt.meter.admit('/responses', {}, Buffer.from(body))
    expect('body' in admitted && admitted.body.toString()).toBe(body)
    const spent = meterOf('openai-responses', 0.01, 0.01, false)
    expect(await spent.meter.admit('/responses', {}, Buffer.from(body))).toEqual({
      refused: expect.stringContaining("Ralph's cost cap of $0.01 is reached"),
    })
  })

  it('streams a metered answer as it comes; a model Ralph has no price for is said once and not held', async () => {
    const { meter, logger } = meterOf('anthropic-messages', 0.01)
    const up = await upstream()
    closers.push(() => new Promise((r) => up.server.close(() => r())))
    up.server.on('connection', (sock) => closers.push(async () => void sock.destroy()))
    const proxy = await startCredentialProxy({
      upstream: up.url,
      authHeaders: async () => ({ 'x-api-key': 'k' }),
      meter,
      logger,
    })
    closers.unshift(() => proxy.close())
    for (let i = 0; i < 2; i++) {
      const chunks: string[] = []
      const answered = call(proxy.url, {
        headers: { 'x-api-key': proxy.placeholder },
        body: '{"model":"my-local-model","max_tokens":5}',
        onChunk: (c) => {
          chunks.push(c)
          if (chunks.length === 1) up.second()
        },
      })
      expect(await answered).toEqual({ status: 200, body: 'data: first\n\ndata: second\n\n' })
      expect(chunks[0]).toBe('data: first\n\n')
    }
    expect(up.seen.map((s) => s.body)).toEqual(Array(2).fill('{"model":"my-local-model","max_tokens":5}'))
    expect(logger.lines.filter((l) => l.includes('no price for'))).toEqual([
      expect.stringContaining('"my-local-model" (add it under llm.prices)'),
    ])
    expect(meter.spentUsd).toBe(0)
  })
})
