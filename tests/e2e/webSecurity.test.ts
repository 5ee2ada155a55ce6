import { existsSync, mkdirSync } from 'node:fs'
import { createServer, request } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchChromium, SCREENSHOTS } from '../helpers/browser'
import { makeTempDir } from '../helpers/tempDir'
import {
  closeFrame,
  maskedFrameHeader,
  rawConnect,
  rawWebSocket,
  startWebHost,
  type WebHost,
} from '../helpers/webHost'

const escapeHtml = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;')

/**
 * Another site on this machine: pages served from a different port of 127.0.0.1. `/form?action&name&value`
 * is a page with one POST form, the oldest cross-site trick (a text/plain body can spell JSON).
 */
async function startForeignSite(): Promise<{ origin: string; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1')
    const form =
      url.pathname === '/form'
        ? `<form method="post" enctype="text/plain" action="${escapeHtml(url.searchParams.get('action')!)}">` +
          `<input name="${escapeHtml(url.searchParams.get('name')!)}" value="${escapeHtml(url.searchParams.get('value')!)}">` +
          '<button type="submit">Win a prize</button></form>'
        : ''
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
    res.end(`<!doctype html><title>Some other local app</title><h1>elsewhere</h1>${form}`)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

/** Runs in the app's page: the request the renderer's transport makes, with the CSRF value read from the page. */
async function ownCall({ name, csrf }: { name: string; csrf: string | null }): Promise<number> {
  const res = await fetch(`/api/call/${name}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-ralph-csrf': csrf ?? '' },
    body: '{}',
  })
  return res.status
}

// Real `npm run web` as its own process: a crash shows up as a dead host, not as a failed assertion inside it.
describe('web host against hostile clients and cross-site pages', { timeout: 120_000 }, () => {
  let home: ReturnType<typeof makeTempDir>
  let work: ReturnType<typeof makeTempDir>
  let host: WebHost
  let foreign: Awaited<ReturnType<typeof startForeignSite>>
  let browser: Browser
  let context: BrowserContext
  let app: Page

  beforeAll(async () => {
    home = makeTempDir('ralph-home-')
    work = makeTempDir('ralph-work-')
    host = await startWebHost({ RALPH_HOME: home.path })
    foreign = await startForeignSite()
    browser = await launchChromium()
    context = await browser.newContext()
  })

  afterAll(async () => {
    await browser?.close()
    await foreign?.close()
    await host?.stop()
    home?.cleanup()
    work?.cleanup()
  })

  async function callWithToken(name: string, body: string): Promise<Response> {
    return fetch(`${host.origin}/api/call/${name}`, {
      method: 'POST',
      headers: { 'x-ralph-token': host.token, 'content-type': 'application/json' },
      body,
    })
  }

  /** The host process is alive and an authorized call still succeeds. */
  async function expectServing(): Promise<void> {
    expect(host.running()).toBe(true)
    expect((await callWithToken('app.info', '{}')).status).toBe(200)
  }

  const expectLogged = (text: string) => expect.poll(() => host.output(), { timeout: 20_000 }).toContain(text)

  describe('hostile bytes', () => {
    it('closes a WebSocket client that sends an unmasked frame (1002) and keeps serving', async () => {
      const ws = await rawWebSocket(host.port, host.token)
      ws.write(Buffer.from([0x81, 0x02, 0x68, 0x69]))
      const received = await ws.waitFor((r) => r.includes(closeFrame(1002)))
      expect(received.includes(closeFrame(1002))).toBe(true)
      await expectLogged('MASK must be set')
      ws.destroy()
      await expectServing()
    })

    it('closes a WebSocket client that sends a frame over 1 MB (1009) and keeps serving', async () => {
      const ws = await rawWebSocket(host.port, host.token)
      ws.write(maskedFrameHeader(0x1, 1024 * 1024 + 1))
      ws.write(Buffer.alloc(256 * 1024, 0x61))
      const received = await ws.waitFor((r) => r.includes(closeFrame(1009)))
      expect(received.includes(closeFrame(1009))).toBe(true)
      await expectLogged('Max payload size exceeded')
      ws.destroy()
      await expectServing()
    })

    it('closes a WebSocket client that sends garbage after the upgrade and keeps serving', async () => {
      const ws = await rawWebSocket(host.port, host.token)
      // 't' (0x74) sets reserved bits that no extension was agreed for.
      ws.write(Buffer.from('this is not a WebSocket frame\r\n\x00\xff\xfe'))
      await ws.waitFor((r) => r.includes(closeFrame(1002)))
      await expectLogged('RSV2 and RSV3 must be clear')
      ws.destroy()
      await expectServing()
    })

    it('answers malformed HTTP requests with 400, logs them and keeps serving', async () => {
      const requests = [
        'GARBAGE \x00\x01 NOT HTTP\r\n\r\n',
        `GET / HTTP/1.1\r\nHost: 127.0.0.1:${host.port}\r\nContent-Length: many\r\n\r\n`,
        // An absolute URL that does not parse, on the WebSocket path of the server.
        `GET http://[ HTTP/1.1\r\nHost: 127.0.0.1:${host.port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n`,
        // A token cookie whose escape does not decode, on the WebSocket path too.
        `GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:${host.port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
          `Cookie: ralph_token=%E0%A4%A; ralph_token_${host.port}=%E0%A4%A\r\n\r\n`,
      ]
      for (const raw of requests) {
        const conn = await rawConnect(host.port)
        conn.write(raw)
        const answer = await conn.waitFor((r) => r.includes('\r\n\r\n'))
        expect(answer.toString('latin1')).toMatch(/^HTTP\/1\.1 40[01] /)
        conn.destroy()
      }
      await expectLogged('bad HTTP request')
      await expectServing()
    })

    it('answers a request body over 5 MB with 413 and keeps serving', async () => {
      const target = join(work.path, 'big-body')
      mkdirSync(target)
      const body = JSON.stringify({ path: target, padding: 'x'.repeat(6 * 1024 * 1024) })
      const declared = await callWithToken('projects.open', body)
      expect(declared.status).toBe(413)
      expect(await declared.json()).toMatchObject({ ok: false, error: { kind: 'invalid-input' } })

      // The same without a declared length: the limit is found while reading.
      const streamed = await new Promise<number>((resolve, reject) => {
        const req = request(
          `${host.origin}/api/call/projects.open`,
          {
            method: 'POST',
            headers: { 'x-ralph-token': host.token, 'content-type': 'application/json' },
          },
          (res) => {
            res.resume()
            resolve(res.statusCode!)
          },
        )
        req.on('error', reject)
        for (let at = 0; at < body.length; at += 1024 * 1024) req.write(body.slice(at, at + 1024 * 1024))
        req.end()
      })
      expect(streamed).toBe(413)
      expect(existsSync(join(target, '.ralph'))).toBe(false)
      await expectServing()
    })
  })

  describe('in Chromium', () => {
    it("loads the app, whose own calls succeed with the page's CSRF value", async () => {
      app = await context.newPage()
      const calls: { url: string; status: number }[] = []
      app.on('response', (res) => {
        if (res.url().includes('/api/call/')) calls.push({ url: res.url(), status: res.status() })
      })
      await app.goto(host.url)
      await expect.poll(() => app.url()).toBe(`${host.origin}/`)
      await expect.poll(() => calls.length, { timeout: 20_000 }).toBeGreaterThan(0)
      expect(calls.filter((c) => c.status !== 200)).toEqual([])

      // The same request the renderer's transport makes, from the app's own page.
      const status = await app.evaluate(ownCall, {
        name: 'app.info',
        csrf: await app.locator('meta[name="ralph-csrf"]').getAttribute('content', { timeout: 5000 }),
      })
      expect(status).toBe(200)
      expect((await context.cookies(host.origin)).length).toBeGreaterThan(0)
      await app.screenshot({ path: join(SCREENSHOTS, 'web-security-01-app.png') })
    })

    it('a page on another port of 127.0.0.1 cannot call the API or open the event stream', async () => {
      // The form's folder name ends in '=': that is where a text/plain form body puts its one '='.
      const targets = ['no-cors-text', 'no-cors-blob', 'cors-json', 'form-post='].map((name) => {
        const dir = join(work.path, `target-${name}`)
        mkdirSync(dir)
        return dir
      })
      const page = await context.newPage()
      await page.goto(foreign.origin)
      // Same site as the host (only the port differs), so the browser attaches the SameSite=Strict cookie.
      const outcomes = await page.evaluate(
        async ({ url, targets: [text, blob, json] }) => {
          const attempt = async (init: RequestInit) => {
            try {
              const res = await fetch(url, { method: 'POST', credentials: 'include', ...init })
              return `${res.type} ${res.status}`
            } catch (err) {
              return String(err)
            }
          }
          return [
            await attempt({
              mode: 'no-cors',
              headers: { 'content-type': 'text/plain' },
              body: JSON.stringify({ path: text }),
            }),
            await attempt({
              mode: 'no-cors',
              body: new Blob([JSON.stringify({ path: blob })], { type: 'application/json' }),
            }),
            await attempt({
              mode: 'cors',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify({ path: json }),
            }),
          ]
        },
        { url: `${host.origin}/api/call/projects.open`, targets },
      )
      // The CORS request never leaves the browser: its preflight gets no CORS headers.
      expect(outcomes[2]).toContain('TypeError')

      // A plain HTML form whose text/plain body `name=value` spells {"path":"…/target-form-post="}.
      const form = new URL(`${foreign.origin}/form`)
      form.searchParams.set('action', `${host.origin}/api/call/projects.open`)
      form.searchParams.set('name', `{"path":${JSON.stringify(targets[3]).slice(0, -2)}`)
      form.searchParams.set('value', '"}')
      await page.goto(form.href)
      const [formResponse] = await Promise.all([
        page.waitForResponse((res) => res.url().includes('/api/call/projects.open')),
        page.click('button[type=submit]'),
      ])
      expect(formResponse.status()).toBeGreaterThanOrEqual(400)
      await page.screenshot({ path: join(SCREENSHOTS, 'web-security-02-form-refused.png') })

      for (const dir of targets) expect(existsSync(join(dir, '.ralph')), dir).toBe(false)
      const projects = (await (await callWithToken('projects.list', '{}')).json()) as {
        value: { path: string }[]
      }
      expect(projects.value.filter((p) => targets.includes(p.path))).toEqual([])

      // The event stream stays closed to it as well (the Origin check on the upgrade).
      await page.goto(foreign.origin)
      const socket = await page.evaluate(
        (url) =>
          new Promise<string>((resolve) => {
            const ws = new WebSocket(url)
            ws.onopen = () => resolve('open')
            ws.onerror = () => resolve('refused')
          }),
        `ws://127.0.0.1:${host.port}/api/events`,
      )
      expect(socket).toBe('refused')
      await page.close()
    })

    it('leaves the app page working after the attempts', async () => {
      await app.reload()
      const status = await app.evaluate(ownCall, {
        name: 'projects.list',
        csrf: await app.locator('meta[name="ralph-csrf"]').getAttribute('content', { timeout: 5000 }),
      })
      expect(status).toBe(200)
      await expectServing()
    })
  })
})
