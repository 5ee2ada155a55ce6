import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Duplex } from 'node:stream'
import { WebSocketServer, type WebSocket } from 'ws'
import { httpPaths, isCallName } from '../../shared/api/contract'
import type { ErrorKind } from '../../shared/errors'
import type { Core } from '../api/core'
import {
  CSRF_META,
  findToken,
  isLoopbackHost,
  isOwnOrigin,
  newToken,
  refuseCall,
  tokenCookie,
  type TokenSource,
} from './auth'
import { resolveStatic, sendFile } from './staticFiles'
import { sendUnauthorizedPage, wantsHtml } from './unauthorizedPage'

export interface WebServerOptions {
  core: Core
  token: string
  /** The built renderer (out/renderer). */
  staticDir: string
  /** 0 picks a free port. */
  port: number
  /** The value the renderer must echo in `x-ralph-csrf`; random per launch unless given. */
  csrfToken?: string
  /** One line per refused or broken client; stderr unless given. */
  log?: (line: string) => void
}

export interface RunningWebServer {
  url: string
  port: number
  csrfToken: string
  server: Server
  close(): Promise<void>
}

export const MAX_BODY_BYTES = 5 * 1024 * 1024
/** The body limit of calls that carry images (8 of at most 5 MB each, as base64 in JSON). */
export const MAX_ATTACHMENT_BODY_BYTES = 48 * 1024 * 1024
const ATTACHMENT_CALLS: ReadonlySet<string> = new Set(['chat.send', 'tasks.start'])
/** A call's body limit: the calls that carry images get the larger one, every other call the 5 MB one. */
export const bodyLimitOf = (name: string) =>
  ATTACHMENT_CALLS.has(name) ? MAX_ATTACHMENT_BODY_BYTES : MAX_BODY_BYTES
export const MAX_FRAME_BYTES = 1024 * 1024
/** How long a refused oversized upload may keep sending before its connection is cut. */
const LINGER_MS = 10_000
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

/**
 * No (or a stale) token: a browser reads why and what to do, a call gets its JSON error, anything else the bare
 * word. The status is 401 for all.
 */
function refuseWithoutToken(req: IncomingMessage, res: ServerResponse, url: URL): void {
  if (url.pathname.startsWith(CALL_PREFIX))
    return sendJson(
      res,
      401,
      errorBody(
        'unauthorized',
        'No valid token: open the address the web host printed when it started (a restart makes a new one).',
      ),
    )
  if (wantsHtml(req, url.pathname)) return sendUnauthorizedPage(res)
  refuse(res)
}

function errorBody(kind: ErrorKind, message: string): string {
  return JSON.stringify({ ok: false, error: { kind, message } })
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' })
  res.end(typeof body === 'string' ? body : JSON.stringify(body))
}

class BodyTooLarge extends Error {}

/** The body as text; past the limit it stops keeping chunks and rejects with BodyTooLarge. */
function readBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<string> {
  return new Promise((resolve, reject) => {
    if (Number(req.headers['content-length'] ?? 0) > limit) return reject(new BodyTooLarge())
    let size = 0
    const chunks: Buffer[] = []
    const onData = (chunk: Buffer) => {
      size += chunk.length
      if (size <= limit) return void chunks.push(chunk)
      req.off('data', onData)
      reject(new BodyTooLarge())
    }
    req.on('data', onData)
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
    req.on('error', reject)
  })
}

/**
 * Answers 413 at once, but closes only once the client stops sending: closing a socket with unread input
 * resets it, and the client would lose the answer. A client that keeps sending is cut off after LINGER_MS.
 */
function refuseTooLarge(req: IncomingMessage, res: ServerResponse, limit = MAX_BODY_BYTES): void {
  const body = errorBody('invalid-input', `Request body over the ${limit / 1024 / 1024} MB limit.`)
  res.writeHead(413, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
    connection: 'close',
  })
  res.write(body)
  if (req.readableEnded) return void res.end()
  const timer = setTimeout(() => {
    res.end()
    req.socket.destroy()
  }, LINGER_MS)
  req.once('end', () => {
    clearTimeout(timer)
    res.end()
  })
  req.once('close', () => clearTimeout(timer))
  req.resume()
}

/** The request URL, or null when it cannot be parsed (e.g. `GET http://[ HTTP/1.1`); callers answer 400. */
function parseUrl(req: IncomingMessage, port: number): URL | null {
  return URL.canParse(req.url ?? '/', `http://127.0.0.1:${port}`)
    ? new URL(req.url ?? '/', `http://127.0.0.1:${port}`)
    : null
}

/** The path of a request for a log line; the query may hold the token. */
function pathOf(req: IncomingMessage): string {
  return (req.url ?? '/').split('?')[0]!.slice(0, 200)
}

/** The status line for a request Node's HTTP parser rejected (Node's own defaults). */
function parserErrorStatus(code: string | undefined): string {
  if (code === 'HPE_HEADER_OVERFLOW') return '431 Request Header Fields Too Large'
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return '408 Request Timeout'
  return '400 Bad Request'
}

function endRaw(socket: Duplex, status: string): void {
  socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`)
}

const logToStderr = (line: string) => void process.stderr.write(`[web host] ${line}\n`)

/** What the host's handlers share; `port` is the bound one once listening (0 asks for a free port until then). */
interface Host {
  core: Core
  token: string
  staticDir: string
  csrfToken: string
  log: (line: string) => void
  port: number
}

/**
 * The local web host: the contract over HTTP (POST /api/call/<name>) and events over a WebSocket, plus the
 * built renderer. Loopback only, and every request and connection must carry the per-launch token. A broken
 * or hostile client costs its own connection and a log line, never the process.
 */
export function startWebServer(options: WebServerOptions): Promise<RunningWebServer> {
  const host: Host = {
    core: options.core,
    token: options.token,
    staticDir: options.staticDir,
    csrfToken: options.csrfToken ?? newToken(),
    log: options.log ?? logToStderr,
    port: options.port,
  }
  const { log } = host
  const sockets = new Set<WebSocket>()

  const server = createServer((req, res) => {
    void handle(host, req, res).catch((err: unknown) => {
      log(`${req.method} ${pathOf(req)} failed: ${String(err)}`)
      if (!res.headersSent) sendJson(res, 500, errorBody('internal', String(err)))
      else res.end()
    })
  })

  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    log(`bad HTTP request: ${err.code ?? ''} ${err.message}`)
    // Node's own rule: answer only when the socket still works and no response has begun on it.
    const response = (socket as Duplex & { _httpMessage?: ServerResponse })._httpMessage
    if (err.code === 'ECONNRESET' || !socket.writable || response?.headersSent) return void socket.destroy()
    endRaw(socket, parserErrorStatus(err.code))
  })

  // Oversized frames close with 1009 and protocol errors with 1002 (ws does both); compression stays off.
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES, perMessageDeflate: false })
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) =>
    upgrade(host, wss, sockets, req, socket, head),
  )
  return listen(host, server, () => {
    for (const ws of sockets) ws.terminate()
    wss.close()
  })
}

async function handleCall(
  host: Host,
  req: IncomingMessage,
  res: ServerResponse,
  name: string,
  source: TokenSource,
): Promise<void> {
  if (req.method !== 'POST') return sendJson(res, 405, errorBody('invalid-input', 'Use POST.'))
  if (!isCallName(name)) return sendJson(res, 404, errorBody('invalid-input', `Unknown call "${name}".`))
  const refusal = refuseCall(req, source, host.csrfToken, host.port)
  if (refusal) {
    host.log(`refused ${name}: ${refusal.message}`)
    return sendJson(res, refusal.status, errorBody(refusal.kind, refusal.message))
  }
  let input: unknown
  try {
    const body = await readBody(req, bodyLimitOf(name))
    input = body ? JSON.parse(body) : {}
  } catch (err) {
    if (err instanceof BodyTooLarge) return refuseTooLarge(req, res, bodyLimitOf(name))
    return sendJson(res, 400, errorBody('invalid-input', `Bad request body: ${(err as Error).message}`))
  }
  const result = await host.core.dispatch(name, input)
  return sendJson(res, result.ok ? 200 : (statusFor[result.error.kind] ?? 400), result)
}

async function handle(host: Host, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const { port, token } = host
  if (!isLoopbackHost(req.headers.host, port)) return refuse(res, 403)
  const url = parseUrl(req, port)
  if (!url) {
    host.log(`bad request URL: ${pathOf(req)}`)
    return sendJson(res, 400, errorBody('invalid-input', 'Malformed request URL.'))
  }
  const source = findToken(req, url, token, port)
  if (!source) return refuseWithoutToken(req, res, url)

  if (url.pathname.startsWith(CALL_PREFIX))
    return handleCall(host, req, res, url.pathname.slice(CALL_PREFIX.length), source)

  const headers = securityHeaders(port)
  if (source === 'query' && req.method === 'GET') {
    // Trade the URL token for an HttpOnly cookie and drop it from the address bar and history.
    url.searchParams.delete('token')
    res.writeHead(302, {
      location: url.pathname + url.search,
      'set-cookie': tokenCookie(token, port),
      'cache-control': 'no-store',
      ...headers,
    })
    res.end()
    return
  }
  if (req.method !== 'GET' && req.method !== 'HEAD') return refuse(res, 403)
  sendFile(res, resolveStatic(host.staticDir, url.pathname), headers, { [CSRF_META]: host.csrfToken })
}

function upgradeAllowed(host: Host, req: IncomingMessage, url: URL): boolean {
  const origin = req.headers.origin
  return (
    url.pathname === httpPaths.events &&
    isLoopbackHost(req.headers.host, host.port) &&
    // Browsers always send Origin on a WebSocket; only our own page may listen to the events.
    (origin === undefined || isOwnOrigin(origin, req.headers.host, host.port)) &&
    findToken(req, url, host.token, host.port) !== null
  )
}

/** An allowed WebSocket hears every event of the core until it closes. */
function upgrade(
  host: Host,
  wss: WebSocketServer,
  sockets: Set<WebSocket>,
  req: IncomingMessage,
  socket: Duplex,
  head: Buffer,
): void {
  const { log } = host
  // Node drops its own error handler on upgraded sockets; a reset must not become an uncaught error.
  socket.on('error', (err) => log(`WebSocket connection error: ${err.message}`))
  const url = parseUrl(req, host.port)
  if (!url) {
    log(`bad WebSocket request URL: ${pathOf(req)}`)
    return endRaw(socket, '400 Bad Request')
  }
  if (!upgradeAllowed(host, req, url)) return endRaw(socket, '401 Unauthorized')
  wss.handleUpgrade(req, socket, head, (ws) => {
    // ws has already sent the close frame (1002, 1009 …) when it reports a bad frame here.
    ws.on('error', (err) => log(`closed a WebSocket client: ${err.message}`))
    sockets.add(ws)
    const unsubscribe = host.core.events.subscribe((event) => {
      if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(event))
    })
    ws.on('close', () => {
      unsubscribe()
      sockets.delete(ws)
    })
  })
}

/** Binds to loopback; a port in use is refused with what to do. `closeSockets` ends the WebSockets on close. */
function listen(host: Host, server: Server, closeSockets: () => void): Promise<RunningWebServer> {
  return new Promise((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EADDRINUSE') {
        reject(
          new Error(
            `Port ${host.port} on 127.0.0.1 is already in use. Stop the other program or pass --port N.`,
          ),
        )
      } else reject(err)
    })
    server.listen(host.port, '127.0.0.1', () => {
      host.port = (server.address() as AddressInfo).port
      server.on('error', (err) => host.log(`server error: ${err.message}`))
      resolve({
        url: `http://127.0.0.1:${host.port}/?token=${host.token}`,
        port: host.port,
        csrfToken: host.csrfToken,
        server,
        close: () =>
          new Promise<void>((done) => {
            closeSockets()
            server.close(() => done())
            server.closeAllConnections()
          }),
      })
    })
  })
}
