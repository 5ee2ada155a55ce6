import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { request } from 'node:http'
import WebSocket from 'ws'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { makeCore } from '../../../tests/helpers/core'
import { makeTempDir } from '../../../tests/helpers/tempDir'
import { closeFrame, maskedFrameHeader, rawConnect, rawWebSocket } from '../../../tests/helpers/webHost'
import { newToken } from './auth'
import {
  MAX_ATTACHMENT_BODY_BYTES,
  MAX_BODY_BYTES,
  MAX_FRAME_BYTES,
  startWebServer,
  type RunningWebServer,
} from './server'

function rawGet(
  port: number,
  path: string,
  headers: Record<string, string>,
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers }, (res) => {
      let body = ''
      res.on('data', (c: Buffer) => (body += c.toString()))
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }))
    })
    req.on('error', reject)
    req.end()
  })
}

describe('web host server', () => {
  let env: ReturnType<typeof makeCore>
  let statics: ReturnType<typeof makeTempDir>
  let server: RunningWebServer
  const token = newToken()
  const logged: string[] = []
  const call = (name: string, init: { headers?: Record<string, string>; body?: string }) =>
    fetch(`http://127.0.0.1:${server.port}/api/call/${name}`, {
      method: 'POST',
      headers: init.headers,
      body: init.body ?? '{}',
    })
  /** What scripts send: the token itself, and JSON. */
  const authed = { 'x-ralph-token': token, 'content-type': 'application/json' }
  const own = () => `http://127.0.0.1:${server.port}`
  const cookie = () => `ralph_token_${server.port}=${token}`
  /** An authorized call succeeds: the host is still serving. */
  async function expectServing(): Promise<void> {
    const res = await call('projects.list', { headers: authed })
    expect(res.status).toBe(200)
  }

  beforeAll(async () => {
    env = makeCore()
    statics = makeTempDir()
    writeFileSync(join(statics.path, 'index.html'), '<!doctype html><title>Ralph Studio</title>')
    mkdirSync(join(statics.path, 'assets'))
    writeFileSync(join(statics.path, 'assets', 'app.js'), 'console.log(1)')
    server = await startWebServer({
      core: env.core,
      token,
      staticDir: statics.path,
      port: 0,
      log: (line) => logged.push(line),
    })
  })
  afterAll(async () => {
    await server.close()
    await env.cleanup()
    statics.cleanup()
  })

  it('uses a token of at least 128 random bits, new each time', () => {
    expect(Buffer.from(token, 'base64url').length).toBeGreaterThanOrEqual(16)
    expect(newToken()).not.toBe(newToken())
  })

  it('listens on 127.0.0.1 only', () => {
    expect(server.server.address()).toMatchObject({ address: '127.0.0.1' })
  })

  it('tells a browser without the token, in a readable page, that a restarted host printed a new address', async () => {
    const host = `127.0.0.1:${server.port}`
    const stale = `ralph_token_${server.port}=${newToken()}`
    const page = await rawGet(server.port, '/', { host, cookie: stale, accept: 'text/html,*/*;q=0.8' })
    expect(page.status).toBe(401)
    expect(page.headers['content-type']).toMatch(/^text\/html/)
    expect(page.headers['content-security-policy']).toContain("default-src 'none'")
    expect(page.body).toContain('restarted')
    expect(page.body).toContain('printed in the terminal where it was started')
    expect(page.body).not.toContain('<script')
    // A script's request keeps the bare word, and a call its JSON error; both stay 401.
    const bare = await rawGet(server.port, '/', { host, cookie: stale })
    expect([bare.status, bare.body]).toEqual([401, 'Unauthorized\n'])
    const refused = await call('app.info', {
      headers: { 'content-type': 'application/json', accept: 'text/html' },
    })
    expect(refused.status).toBe(401)
    expect(await refused.json()).toMatchObject({ ok: false, error: { kind: 'unauthorized' } })
  })

  it('trades the URL token for an HttpOnly SameSite=Strict cookie that then works alone', async () => {
    const first = await rawGet(server.port, `/?token=${token}`, { host: `127.0.0.1:${server.port}` })
    expect(first.status).toBe(302)
    expect(first.headers.location).toBe('/')
    const setCookie = String(first.headers['set-cookie'])
    expect(setCookie).toContain('HttpOnly')
    expect(setCookie).toContain('SameSite=Strict')
    expect(setCookie.split(';')[0]).toBe(cookie())
    const page = await rawGet(server.port, '/', {
      host: `127.0.0.1:${server.port}`,
      cookie: setCookie.split(';')[0]!,
    })
    expect(page.status).toBe(200)
    expect(page.body).toContain('Ralph Studio')
    expect(String(page.headers['content-security-policy'])).toContain("script-src 'self'")
    const asset = await rawGet(server.port, '/assets/app.js', {
      host: `localhost:${server.port}`,
      'x-ralph-token': token,
    })
    expect(asset.body).toBe('console.log(1)')
  })

  it('refuses a foreign Host header (DNS rebinding) even with the token', async () => {
    const res = await rawGet(server.port, `/?token=${token}`, { host: 'evil.example:80' })
    expect(res.status).toBe(403)
  })

  it('never serves files outside the renderer folder', async () => {
    const res = await rawGet(server.port, '/..%2f..%2f..%2fetc%2fpasswd', {
      host: `127.0.0.1:${server.port}`,
      'x-ralph-token': token,
    })
    expect(res.body).not.toContain('root:')
    expect(res.body).toContain('Ralph Studio')
  })

  it('streams contract events over an authenticated WebSocket', async () => {
    const ws = new WebSocket(`ws://127.0.0.1:${server.port}/api/events`, {
      headers: { 'x-ralph-token': token },
    })
    await new Promise((resolve, reject) => {
      ws.on('open', resolve)
      ws.on('error', reject)
    })
    const received = new Promise<unknown>((resolve) =>
      ws.on('message', (data) => resolve(JSON.parse(String(data)))),
    )
    env.core.events.emit('settings.changed', { key: 'llm' })
    expect(await received).toEqual({ name: 'settings.changed', payload: { key: 'llm' } })
    ws.close()
  })

  it('refuses a WebSocket from a foreign origin', async () => {
    const ws = new WebSocket(`ws://127.0.0.1:${server.port}/api/events`, {
      headers: { 'x-ralph-token': token, origin: 'http://evil.example' },
    })
    const outcome = await new Promise<string>((resolve) => {
      ws.on('unexpected-response', (_r, res) => resolve(String(res.statusCode)))
      ws.on('open', () => resolve('open'))
      ws.on('error', () => resolve('error'))
    })
    expect(outcome).toBe('401')
  })

  it('answers calls over HTTP with the contract error shape', async () => {
    const res = await call('projects.get', {
      headers: authed,
      body: JSON.stringify({ projectId: 'x' }),
    })
    expect(res.status).toBe(400)
    expect(await res.json()).toMatchObject({ ok: false, error: { kind: 'invalid-input' } })
    const bad = await call('projects.list', {
      headers: authed,
      body: '{not json',
    })
    expect(bad.status).toBe(400)
  })

  it('refuses a WebSocket from another port of 127.0.0.1', async () => {
    const ws = new WebSocket(`ws://127.0.0.1:${server.port}/api/events`, {
      headers: { cookie: cookie(), origin: `http://127.0.0.1:${server.port + 1}` },
    })
    const outcome = await new Promise<string>((resolve) => {
      ws.on('unexpected-response', (_r, res) => resolve(String(res.statusCode)))
      ws.on('open', () => resolve('open'))
      ws.on('error', () => resolve('error'))
    })
    expect(outcome).toBe('401')
  })

  describe('cross-site calls', () => {
    it('puts a per-launch CSRF value into the app shell for its own scripts', async () => {
      const page = await rawGet(server.port, '/some/route', {
        host: `127.0.0.1:${server.port}`,
        cookie: cookie(),
      })
      expect(server.csrfToken.length).toBeGreaterThanOrEqual(22)
      expect(server.csrfToken).not.toBe(token)
      expect(page.body).toContain(`<meta name="ralph-csrf" content="${server.csrfToken}" />`)
      // This shell has no <head>: the tag goes in front and the rest is unchanged.
      expect(page.body).toContain('<title>Ralph Studio</title>')
    })

    it('takes calls only as application/json', async () => {
      for (const type of [
        'text/plain',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
      ]) {
        const res = await call('projects.list', { headers: { 'x-ralph-token': token, 'content-type': type } })
        expect(res.status).toBe(415)
        expect(await res.json()).toMatchObject({ ok: false, error: { kind: 'invalid-input' } })
      }
      const none = await call('projects.list', { headers: { 'x-ralph-token': token } })
      expect(none.status).toBe(415)
      const withCharset = await call('projects.list', {
        headers: { 'x-ralph-token': token, 'content-type': 'application/json; charset=utf-8' },
      })
      expect(withCharset.status).toBe(200)
    })

    it('refuses calls from another origin or site, even with the token', async () => {
      for (const origin of [`http://127.0.0.1:${server.port + 1}`, 'null', 'http://evil.example']) {
        const res = await call('projects.list', { headers: { ...authed, origin } })
        expect(res.status).toBe(403)
      }
      const sameSite = await call('projects.list', {
        headers: { ...authed, 'sec-fetch-site': 'same-site' },
      })
      expect(sameSite.status).toBe(403)
      expect(logged.some((l) => l.includes('Calls from another origin are refused'))).toBe(true)
    })

    it('needs our Origin and the CSRF header when only the cookie authenticates', async () => {
      const base = { 'content-type': 'application/json', cookie: cookie() }
      const attempts: Record<string, string>[] = [
        { ...base, origin: own() },
        { ...base, origin: own(), 'x-ralph-csrf': 'guess' },
        { ...base, 'x-ralph-csrf': server.csrfToken },
        { ...base, origin: `http://127.0.0.1:${server.port + 1}`, 'x-ralph-csrf': server.csrfToken },
      ]
      for (const headers of attempts) expect((await call('projects.list', { headers })).status).toBe(403)
      const ok = await call('projects.list', {
        headers: {
          ...base,
          origin: own(),
          'x-ralph-csrf': server.csrfToken,
          'sec-fetch-site': 'same-origin',
        },
      })
      expect(ok.status).toBe(200)
    })

    it('names the token cookie after its port, so hosts on other ports neither clash nor accept it', async () => {
      const other = await rawGet(server.port, '/', {
        host: `127.0.0.1:${server.port}`,
        cookie: `ralph_token=${token}; ralph_token_${server.port + 1}=${token}`,
      })
      expect(other.status).toBe(401)
    })
  })

  describe('hostile clients', () => {
    /** A WebSocket client sends `frames`: the host closes it with `code`, logs `logLine` and keeps serving. */
    async function expectClosed(frames: Buffer[], code: number, logLine: string) {
      const ws = await rawWebSocket(server.port, token)
      for (const frame of frames) ws.write(frame)
      await ws.waitFor((r) => r.includes(closeFrame(code)))
      expect(ws.received().includes(closeFrame(code))).toBe(true)
      await expect.poll(() => logged.join('\n')).toContain(logLine)
      ws.destroy()
      await expectServing()
    }

    it('closes a WebSocket that sends an unmasked frame with 1002, logs it and keeps serving', async () => {
      await expectClosed([Buffer.from([0x81, 0x02, 0x68, 0x69])], 1002, 'MASK must be set')
    })

    it('closes a WebSocket frame over 1 MB with 1009 and keeps serving', async () => {
      const frames = [maskedFrameHeader(0x2, MAX_FRAME_BYTES + 1), Buffer.alloc(64 * 1024)]
      await expectClosed(frames, 1009, 'Max payload size exceeded')
    })

    it('answers a malformed request line with 400 and a log line', async () => {
      const conn = await rawConnect(server.port)
      conn.write('GARBAGE\x00\x01 NOT HTTP\r\n\r\n')
      const answer = await conn.waitFor((r) => r.includes('\r\n\r\n'))
      expect(answer.toString('latin1')).toMatch(/^HTTP\/1\.1 400/)
      await expect.poll(() => logged.join('\n')).toContain('bad HTTP request')
      conn.destroy()
      await expectServing()
    })

    it('answers an unparsable URL or cookie, on a WebSocket upgrade too, with an error instead of a crash', async () => {
      const host = `Host: 127.0.0.1:${server.port}\r\n`
      const upgrade = 'Upgrade: websocket\r\nConnection: Upgrade\r\n'
      const badCookie = `Cookie: ralph_token=%E0%A4%A; ralph_token_${server.port}=%E0%A4%A\r\n`
      const requests = [
        `GET http://[ HTTP/1.1\r\n${host}\r\n`,
        `GET http://[ HTTP/1.1\r\n${host}${upgrade}\r\n`,
        `GET / HTTP/1.1\r\n${host}${badCookie}\r\n`,
        `GET /api/events HTTP/1.1\r\n${host}${upgrade}${badCookie}\r\n`,
      ]
      for (const raw of requests) {
        const conn = await rawConnect(server.port)
        conn.write(raw)
        const answer = await conn.waitFor((r) => r.includes('\r\n\r\n'))
        expect(answer.toString('latin1')).toMatch(/^HTTP\/1\.1 40[01]/)
        conn.destroy()
      }
      await expectServing()
    })

    it('answers a body over the limit with 413, declared or streamed, and keeps serving', async () => {
      const big = '"' + 'x'.repeat(MAX_BODY_BYTES) + '"'
      const declared = await call('projects.list', {
        headers: authed,
        body: big,
      })
      expect(declared.status).toBe(413)
      expect(await declared.json()).toMatchObject({ ok: false, error: { kind: 'invalid-input' } })

      const streamed = await new Promise<number>((resolve, reject) => {
        const req = request(
          {
            host: '127.0.0.1',
            port: server.port,
            method: 'POST',
            path: '/api/call/projects.list',
            headers: { ...authed, 'transfer-encoding': 'chunked' },
          },
          (res) => {
            res.resume()
            resolve(res.statusCode!)
          },
        )
        req.on('error', reject)
        for (let i = 0; i < 6; i++) req.write(Buffer.alloc(1024 * 1024, 0x20))
        req.end()
      })
      expect(streamed).toBe(413)
      await expectServing()
    })

    it('lets a call that carries images bring a 5 MB PNG, and still refuses a 60 MB body with 413', async () => {
      const png = Buffer.alloc(5 * 1024 * 1024)
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(png)
      const body = JSON.stringify({
        projectId: 999_999,
        message: 'Use this mockup',
        attachments: [{ name: 'mockup.png', mediaType: 'image/png', base64: png.toString('base64') }],
      })
      expect(body.length).toBeGreaterThan(MAX_BODY_BYTES)
      const carried = await call('tasks.start', { headers: authed, body })
      // The body was read and the call dispatched: it fails on the unknown project, not on its size.
      expect(carried.status).not.toBe(413)
      expect(await carried.json()).toMatchObject({ ok: false, error: { kind: 'not-found' } })

      const huge = await call('chat.send', {
        headers: authed,
        body: '"' + 'x'.repeat(60 * 1024 * 1024) + '"',
      })
      expect(huge.status).toBe(413)
      expect(MAX_ATTACHMENT_BODY_BYTES).toBeLessThan(60 * 1024 * 1024)
      // Every other call keeps the 5 MB limit.
      const other = await call('projects.list', { headers: authed, body })
      expect(other.status).toBe(413)
      await expectServing()
    })
  })
})
