import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { request } from 'node:http'
import WebSocket from 'ws'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { makeCore } from '../../../tests/helpers/core'
import { makeTempDir } from '../../../tests/helpers/tempDir'
import { newToken } from './auth'
import { startWebServer, type RunningWebServer } from './server'

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

  beforeAll(async () => {
    env = makeCore()
    statics = makeTempDir()
    writeFileSync(join(statics.path, 'index.html'), '<!doctype html><title>Ralph Studio</title>')
    mkdirSync(join(statics.path, 'assets'))
    writeFileSync(join(statics.path, 'assets', 'app.js'), 'console.log(1)')
    server = await startWebServer({ core: env.core, token, staticDir: statics.path, port: 0 })
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

  it('trades the URL token for an HttpOnly SameSite=Strict cookie that then works alone', async () => {
    const first = await rawGet(server.port, `/?token=${token}`, { host: `127.0.0.1:${server.port}` })
    expect(first.status).toBe(302)
    expect(first.headers.location).toBe('/')
    const cookie = String(first.headers['set-cookie'])
    expect(cookie).toContain('HttpOnly')
    expect(cookie).toContain('SameSite=Strict')
    const page = await rawGet(server.port, '/', {
      host: `127.0.0.1:${server.port}`,
      cookie: cookie.split(';')[0]!,
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
    const res = await fetch(`http://127.0.0.1:${server.port}/api/call/projects.get`, {
      method: 'POST',
      headers: { 'x-ralph-token': token },
      body: JSON.stringify({ projectId: 'x' }),
    })
    expect(res.status).toBe(400)
    expect(await res.json()).toMatchObject({ ok: false, error: { kind: 'invalid-input' } })
    const bad = await fetch(`http://127.0.0.1:${server.port}/api/call/projects.list`, {
      method: 'POST',
      headers: { 'x-ralph-token': token },
      body: '{not json',
    })
    expect(bad.status).toBe(400)
  })
})
