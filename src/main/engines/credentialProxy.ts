// The only way an engine session reaches the user's credentials: a reverse proxy of Ralph's on 127.0.0.1, outside
// the sandbox, one per session on a random port. The session is given a random placeholder key
// (`ralph-session-…`) and the proxy's URL as its provider's base URL; the proxy accepts only requests that bear the
// placeholder, swaps in the real key or OAuth token (read outside the sandbox at each request, so a login refreshed
// meanwhile is used) and forwards them to the one upstream it was made for, streaming both ways. The real credential
// is never in the session's environment, home or reach: a shell command the model runs finds only the placeholder,
// which is worthless anywhere but this proxy, and only while the session runs. Under a cost cap, the session's
// meter (proxyMeter.ts) reads each model call before it goes (refused, or its answer bounded) and its answer's usage
// as it passes back.
import { randomBytes, timingSafeEqual } from 'node:crypto'
import {
  createServer,
  request as httpRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http'
import { request as httpsRequest } from 'node:https'
import type { AddressInfo } from 'node:net'
import { noteFailure, type Logger } from '../workspace'
import type { CallMeter, MeteredCall } from './proxyMeter'

/** A login that cannot be used now (an expired subscription token): the session is told why, with a 401. */
export class LoginUnusable extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'LoginUnusable'
  }
}

export interface CredentialProxyOptions {
  /** The provider's base URL (`https://api.anthropic.com`, `https://api.openai.com/v1`, a gateway's …). */
  upstream: string
  /** The real credential as request headers; called for every request. Throws LoginUnusable when it cannot be used. */
  authHeaders(): Promise<Record<string, string>>
  /** Extra headers for every upstream request (the user's own, e.g. ANTHROPIC_CUSTOM_HEADERS). */
  extraHeaders?: Record<string, string>
  /** The task's cost cap over this session's model calls; absent: no cap. */
  meter?: CallMeter
  /**
   * For a credential that is a signature over the request itself (AWS SigV4 for Amazon Bedrock): given each request
   * as it goes upstream, its body read whole, returns the headers that sign it. Throws LoginUnusable like authHeaders.
   */
  signRequest?(request: UpstreamRequest): Promise<Record<string, string>>
  logger: Logger
}

/** A request as the proxy sends it upstream (header names lower-case). */
export interface UpstreamRequest {
  method: string
  url: URL
  headers: Record<string, string>
  body: Buffer
}

/** The largest request body the proxy reads whole to sign (a model call with images is a few MB). */
const MAX_SIGNED_BODY = 64 * 1024 * 1024

export interface CredentialProxy {
  /** `http://127.0.0.1:<port>`: the session's base URL (paths are appended to the upstream's). */
  url: string
  /** The session's stand-in credential. */
  placeholder: string
  /** Requests forwarded upstream, and refused (without the placeholder). */
  readonly forwarded: number
  readonly refused: number
  /** Why the login could not be used, when a request found it so (an expired token): the session's failure. */
  readonly loginProblem: string | null
  close(): Promise<void>
}

/** Headers of one connection, never forwarded (RFC 9110 §7.6.1), and the ones the proxy sets itself. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
])

/** The request headers that may carry a credential: the placeholder's, replaced by the real one. */
const AUTH_HEADERS = new Set(['authorization', 'x-api-key', 'api-key'])

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given)
  const b = Buffer.from(expected)
  return a.length === b.length && timingSafeEqual(a, b)
}

/** The credential a request bears: `x-api-key`, or `Authorization: Bearer …`. */
export function bearerOf(headers: IncomingHttpHeaders): string | null {
  const key = headers['x-api-key']
  if (typeof key === 'string' && key) return key
  const auth = /^Bearer\s+(.+)$/i.exec(headers.authorization ?? '')?.[1]
  return auth?.trim() || null
}

/** The upstream URL of a request path: the upstream's path, then the request's (its query kept). */
export function upstreamUrl(upstream: URL, path: string): URL {
  const base = upstream.pathname.replace(/\/+$/, '')
  const target = new URL(upstream.href)
  const [pathname, query] = splitQuery(path)
  target.pathname = `${base}${pathname}`
  target.search = query
  return target
}

function splitQuery(path: string): [string, string] {
  const at = path.indexOf('?')
  return at === -1 ? [path, ''] : [path.slice(0, at), path.slice(at)]
}

/** A model call's request larger than this is refused under a cost cap, which reads it whole (the APIs take 32 MB). */
const MAX_METERED_BODY = 64 * 1024 * 1024

/** The request's body, read whole; null when it is larger than `max`. */
function readBody(req: IncomingMessage, max: number): Promise<Buffer | null> {
  return new Promise((done, fail) => {
    const chunks: Buffer[] = []
    let size = 0
    req.on('data', (chunk: Buffer) => {
      size += chunk.length
      if (size <= max) chunks.push(chunk)
    })
    req.on('end', () => done(size <= max ? Buffer.concat(chunks) : null))
    req.on('error', fail)
  })
}

function errorBody(message: string, type: string): string {
  // Read by both engines: Anthropic's `{type: 'error', error: {type, message}}` and OpenAI's `{error: {message, type}}`.
  return JSON.stringify({ type: 'error', error: { type, message, code: null } })
}

function answer(res: ServerResponse, status: number, message: string, type: string): void {
  if (res.headersSent) {
    res.destroy()
    return
  }
  res.writeHead(status, { 'content-type': 'application/json' })
  res.end(errorBody(message, type))
}

/**
 * A model call under a cost cap, read whole and put to the session's meter: refused (answered here), or admitted
 * with the body to forward (bounded, decoded) and its headers set to match.
 */
async function admitMetered(
  meter: CallMeter,
  req: IncomingMessage,
  res: ServerResponse,
  headers: Record<string, string | string[]>,
): Promise<{ body: Buffer; call: MeteredCall } | 'answered'> {
  const raw = await readBody(req, MAX_METERED_BODY)
  if (raw === null) {
    answer(
      res,
      413,
      "The model call is larger than Ralph's session proxy takes (64 MB).",
      'request_too_large',
    )
    return 'answered'
  }
  const admitted = await meter.admit(req.url ?? '/', req.headers, raw)
  if ('refused' in admitted) {
    // A 400 the engines show and stop on (they retry a 429 or 5xx).
    answer(res, 400, admitted.refused, 'invalid_request_error')
    return 'answered'
  }
  if (admitted.decoded) delete headers['content-encoding']
  headers['content-length'] = String(admitted.body.length)
  // The answer's usage is read as it passes: uncompressed.
  headers['accept-encoding'] = 'identity'
  return { body: admitted.body, call: admitted.call }
}

/**
 * Adds the headers that sign the request (with its content-length) to `headers`, reading its body whole unless it
 * was already read (a metered call, bounded before it is signed); null when the request was answered instead (too
 * large, or the login unusable).
 */
async function signInto(
  headers: Record<string, string | string[]>,
  req: IncomingMessage,
  res: ServerResponse,
  target: URL,
  sign: NonNullable<CredentialProxyOptions['signRequest']>,
  logger: Logger,
  state: { loginProblem: string | null },
  read: Buffer | null,
): Promise<Buffer | null> {
  const body = read ?? (await readBody(req, MAX_SIGNED_BODY))
  if (!body) {
    answer(res, 413, "The request is too large for Ralph's session proxy to sign.", 'request_too_large')
    return null
  }
  if (body.length > 0) headers['content-length'] = String(body.length)
  else delete headers['content-length']
  const flat: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers))
    flat[name] = Array.isArray(value) ? value.join(', ') : value
  try {
    Object.assign(headers, await sign({ method: req.method ?? 'GET', url: target, headers: flat, body }))
    return body
  } catch (err) {
    if (err instanceof LoginUnusable) {
      state.loginProblem = err.message
      answer(res, 401, err.message, 'authentication_error')
      return null
    }
    noteFailure(logger, "engine: the session's model call could not be signed", err)
    answer(res, 500, "Ralph could not sign the engine's model call.", 'api_error')
    return null
  }
}

/** The real credential's headers for one request, or null when the request was answered instead (login unusable). */
async function loginHeaders(
  options: CredentialProxyOptions,
  req: IncomingMessage,
  res: ServerResponse,
  state: { loginProblem: string | null },
): Promise<Record<string, string> | null> {
  try {
    return await options.authHeaders()
  } catch (err) {
    req.resume()
    if (err instanceof LoginUnusable) {
      state.loginProblem = err.message
      answer(res, 401, err.message, 'authentication_error')
      return null
    }
    noteFailure(options.logger, "engine: the session's login could not be read", err)
    answer(res, 500, "Ralph could not read the engine's login.", 'api_error')
    return null
  }
}

export async function startCredentialProxy(options: CredentialProxyOptions): Promise<CredentialProxy> {
  const upstream = new URL(options.upstream)
  if (upstream.protocol !== 'http:' && upstream.protocol !== 'https:')
    throw new Error(`The provider's base URL must be http(s), not ${options.upstream}.`)
  const placeholder = `ralph-session-${randomBytes(24).toString('hex')}`
  const state = { forwarded: 0, refused: 0, loginProblem: null as string | null }
  const send = upstream.protocol === 'https:' ? httpsRequest : httpRequest

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const given = bearerOf(req.headers)
    // Only origin-form paths: an absolute URL (`GET http://elsewhere/`) would make this a forward proxy.
    if (!given || !sameSecret(given, placeholder) || !req.url?.startsWith('/')) {
      state.refused++
      req.resume()
      answer(
        res,
        401,
        "This is Ralph's session proxy: the request lacks the session's key.",
        'authentication_error',
      )
      return
    }
    const auth = await loginHeaders(options, req, res, state)
    if (!auth) return
    const headers: Record<string, string | string[]> = {}
    for (const [name, value] of Object.entries(req.headers)) {
      if (value === undefined || HOP_BY_HOP.has(name) || AUTH_HEADERS.has(name)) continue
      headers[name] = value
    }
    Object.assign(headers, options.extraHeaders ?? {}, auth, { host: upstream.host })
    const metered = options.meter?.meters(req.method, req.url)
      ? await admitMetered(options.meter, req, res, headers)
      : null
    if (metered === 'answered') return
    const call = metered?.call ?? null
    const target = upstreamUrl(upstream, req.url)
    // Read whole when metered (bounded first) or signed (the signature covers the final body); else streamed.
    let body: Buffer | null = metered?.body ?? null
    if (options.signRequest) {
      body = await signInto(headers, req, res, target, options.signRequest, options.logger, state, body)
      if (!body) {
        call?.end()
        return
      }
    }
    state.forwarded++
    const up = send(target, { method: req.method, headers }, (upRes) => {
      const out: Record<string, string | string[]> = {}
      for (const [name, value] of Object.entries(upRes.headers))
        if (value !== undefined && !HOP_BY_HOP.has(name)) out[name] = value
      res.writeHead(upRes.statusCode ?? 502, upRes.statusMessage, out)
      // Streamed as it comes: a model's answer is server-sent events.
      res.flushHeaders()
      if (call) {
        call.answered(upRes.statusCode ?? 502, upRes.headers['content-type'])
        // Read beside the pipe, never in its way: the engine gets each chunk as it comes.
        upRes.on('data', (chunk: Buffer) => call.push(chunk))
        upRes.on('end', () => call.end())
      }
      upRes.pipe(res)
      upRes.on('error', () => {
        call?.end()
        res.destroy()
      })
    })
    up.on('error', (err) => {
      call?.end()
      noteFailure(options.logger, `engine: the session's model call to ${target.origin} failed`, err)
      answer(res, 502, `Ralph's session proxy could not reach ${target.origin}: ${err.message}`, 'api_error')
    })
    res.on('close', () => {
      // A call cut off (the engine stopped, the session ended) is billed for what was read of it.
      call?.end()
      if (!res.writableFinished) up.destroy()
    })
    if (body) up.end(body)
    else req.pipe(up)
  }

  const server = createServer((req, res) => {
    res.socket?.setNoDelay(true)
    handle(req, res).catch((err: unknown) => {
      noteFailure(options.logger, "engine: the session proxy's request failed", err)
      answer(res, 500, "Ralph's session proxy failed.", 'api_error')
    })
  })
  // Codex first asks for a WebSocket (GET with Upgrade); refused, it uses plain HTTP with the same credentials.
  server.on('upgrade', (_req, socket) => {
    socket.end('HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n')
  })
  await new Promise<void>((ready, fail) => {
    server.once('error', fail)
    server.listen(0, '127.0.0.1', () => ready())
  })
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    placeholder,
    get forwarded() {
      return state.forwarded
    },
    get refused() {
      return state.refused
    },
    get loginProblem() {
      return state.loginProblem
    },
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections()
        server.close(() => done())
      }),
  }
}
