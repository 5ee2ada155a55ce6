import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { memoryLogger } from '../workspace/logFile'
import { LoginUnusable, startCredentialProxy, upstreamUrl, type CredentialProxy } from './credentialProxy'

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
  opts: { path?: string; headers?: Record<string, string>; onChunk?: (text: string) => void } = {},
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
    req.end('{"model":"m"}')
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
