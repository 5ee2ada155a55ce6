import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { WebSocketServer, type WebSocket } from 'ws'
import { httpPaths, isCallName } from '../../shared/api/contract'
import type { ErrorKind } from '../../shared/errors'
import type { Core } from '../api/core'
import { findToken, isLoopbackHost, tokenCookie } from './auth'
import { resolveStatic, sendFile } from './staticFiles'

export interface WebServerOptions {
  core: Core
  token: string
  /** The built renderer (out/renderer). */
  staticDir: string
  /** 0 picks a free port. */
  port: number
}

export interface RunningWebServer {
  url: string
  port: number
  server: Server
  close(): Promise<void>
}

const MAX_BODY = 5 * 1024 * 1024
const CALL_PREFIX = httpPaths.call('' as never)

const statusFor: Partial<Record<ErrorKind, number>> = {
  'invalid-input': 400,
  unauthorized: 401,
  'not-found': 404,
  busy: 409,
  config: 422,
  provider: 502,
  internal: 500,
}

function securityHeaders(port: number): Record<string, string> {
  return {
    'content-security-policy': [
      "default-src 'self'",
      "script-src 'self'",
      "style-src 'self' 'unsafe-inline'",
      "img-src 'self' data:",
      "font-src 'self' data:",
      `connect-src 'self' ws://127.0.0.1:${port} ws://localhost:${port}`,
      "worker-src 'self' blob:",
      "object-src 'none'",
      "base-uri 'none'",
      "frame-ancestors 'none'",
      "form-action 'none'",
    ].join('; '),
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'x-frame-options': 'DENY',
    'cross-origin-opener-policy': 'same-origin',
  }
}

function refuse(res: ServerResponse, status = 401): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' })
  res.end(status === 401 ? 'Unauthorized\n' : 'Forbidden\n')
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let size = 0
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => {
      size += chunk.length
      if (size > MAX_BODY) {
        reject(new Error('Request body too large (limit 5 MB).'))
        req.destroy()
      } else chunks.push(chunk)
    })
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
    req.on('error', reject)
  })
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' })
  res.end(JSON.stringify(body))
}

/**
 * The local web host: the contract over HTTP (POST /api/call/<name>) and events over a WebSocket, plus the
 * built renderer. Loopback only, and every request and connection must carry the per-launch token.
 */
export function startWebServer(options: WebServerOptions): Promise<RunningWebServer> {
  const { core, token, staticDir } = options
  let port = options.port
  const sockets = new Set<WebSocket>()

  const server = createServer((req, res) => {
    void handle(req, res).catch((err: unknown) => {
      if (!res.headersSent)
        sendJson(res, 500, { ok: false, error: { kind: 'internal', message: String(err) } })
      else res.end()
    })
  })

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!isLoopbackHost(req.headers.host, port)) return refuse(res, 403)
    const url = new URL(req.url ?? '/', `http://127.0.0.1:${port}`)
    const source = findToken(req, url, token)
    if (!source) return refuse(res)

    if (url.pathname.startsWith(CALL_PREFIX)) {
      const name = url.pathname.slice(CALL_PREFIX.length)
      if (req.method !== 'POST')
        return sendJson(res, 405, { ok: false, error: { kind: 'invalid-input', message: 'Use POST.' } })
      if (!isCallName(name)) {
        return sendJson(res, 404, {
          ok: false,
          error: { kind: 'invalid-input', message: `Unknown call "${name}".` },
        })
      }
      let input: unknown
      try {
        const body = await readBody(req)
        input = body ? JSON.parse(body) : {}
      } catch (err) {
        return sendJson(res, 400, {
          ok: false,
          error: { kind: 'invalid-input', message: `Bad request body: ${(err as Error).message}` },
        })
      }
      const result = await core.dispatch(name, input)
      return sendJson(res, result.ok ? 200 : (statusFor[result.error.kind] ?? 400), result)
    }

    const headers = securityHeaders(port)
    if (source === 'query' && req.method === 'GET') {
      // Trade the URL token for an HttpOnly cookie and drop it from the address bar and history.
      url.searchParams.delete('token')
      res.writeHead(302, {
        location: url.pathname + url.search,
        'set-cookie': tokenCookie(token),
        'cache-control': 'no-store',
        ...headers,
      })
      res.end()
      return
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') return refuse(res, 403)
    sendFile(res, resolveStatic(staticDir, url.pathname), headers)
  }

  const wss = new WebSocketServer({ noServer: true, maxPayload: 1024 * 1024 })
  server.on('upgrade', (req, socket, head) => {
    const url = new URL(req.url ?? '/', `http://127.0.0.1:${port}`)
    const originOk =
      !req.headers.origin || isLoopbackHost(req.headers.origin.replace(/^https?:\/\//, ''), port)
    if (
      url.pathname !== httpPaths.events ||
      !isLoopbackHost(req.headers.host, port) ||
      !originOk ||
      !findToken(req, url, token)
    ) {
      socket.end('HTTP/1.1 401 Unauthorized\r\nConnection: close\r\nContent-Length: 0\r\n\r\n')
      return
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      sockets.add(ws)
      const unsubscribe = core.events.subscribe((event) => {
        if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(event))
      })
      ws.on('close', () => {
        unsubscribe()
        sockets.delete(ws)
      })
    })
  })

  return new Promise((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EADDRINUSE') {
        reject(
          new Error(`Port ${port} on 127.0.0.1 is already in use. Stop the other program or pass --port N.`),
        )
      } else reject(err)
    })
    server.listen(port, '127.0.0.1', () => {
      port = (server.address() as AddressInfo).port
      resolve({
        url: `http://127.0.0.1:${port}/?token=${token}`,
        port,
        server,
        close: () =>
          new Promise<void>((done) => {
            for (const ws of sockets) ws.terminate()
            wss.close()
            server.close(() => done())
            server.closeAllConnections()
          }),
      })
    })
  })
}
