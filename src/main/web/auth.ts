import { randomBytes, timingSafeEqual } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import { csrf } from '../../shared/api/contract'

export const TOKEN_HEADER = 'x-ralph-token'
export const CSRF_HEADER = csrf.header
export const CSRF_META = csrf.meta

/** 256 random bits, new per launch (DESIGN.md §3 asks for at least 128). */
export function newToken(): string {
  return randomBytes(32).toString('base64url')
}

/**
 * Cookies ignore ports, so two hosts on one machine would overwrite each other's token under a shared name.
 * `__Host-` would not separate them either: it needs `Secure`, which Chromium grants plain-http loopback pages
 * (all of them, on any port) but other browsers may not. Cross-port requests are stopped by the Origin and CSRF
 * checks of `refuseCall`, not by the cookie.
 */
export function tokenCookieName(port: number): string {
  return `ralph_token_${port}`
}

function cookieValue(header: string | undefined, name: string): string | null {
  if (!header) return null
  for (const part of header.split(';')) {
    const eq = part.indexOf('=')
    if (eq > 0 && part.slice(0, eq).trim() === name) {
      try {
        return decodeURIComponent(part.slice(eq + 1).trim())
      } catch (err) {
        if (err instanceof URIError) return null // a malformed escape is just a wrong token
        throw err
      }
    }
  }
  return null
}

function headerValue(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name]
  return Array.isArray(value) ? value[0] : value
}

export function sameToken(candidate: string | null | undefined, token: string): boolean {
  if (!candidate) return false
  const a = Buffer.from(candidate)
  const b = Buffer.from(token)
  return a.length === b.length && timingSafeEqual(a, b)
}

export type TokenSource = 'query' | 'header' | 'cookie'

/** Where the request carried the right token, or null: the query (first page load), a header, or the cookie. */
export function findToken(req: IncomingMessage, url: URL, token: string, port: number): TokenSource | null {
  if (sameToken(url.searchParams.get('token'), token)) return 'query'
  if (sameToken(headerValue(req, TOKEN_HEADER), token)) return 'header'
  const auth = req.headers.authorization
  if (auth?.startsWith('Bearer ') && sameToken(auth.slice(7), token)) return 'header'
  if (sameToken(cookieValue(req.headers.cookie, tokenCookieName(port)), token)) return 'cookie'
  return null
}

export function tokenCookie(token: string, port: number): string {
  return `${tokenCookieName(port)}=${encodeURIComponent(token)}; HttpOnly; SameSite=Strict; Path=/`
}

/** Refuses requests whose Host is not our loopback address, which defeats DNS-rebinding pages. */
export function isLoopbackHost(hostHeader: string | undefined, port: number): boolean {
  if (!hostHeader) return false
  return [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`].includes(hostHeader.toLowerCase())
}

/** A browser's Origin header names our own page: same scheme, host and port as the (already checked) Host. */
export function isOwnOrigin(origin: string, hostHeader: string | undefined, port: number): boolean {
  if (!isLoopbackHost(hostHeader, port)) return false
  return origin.toLowerCase() === `http://${hostHeader!.toLowerCase()}`
}

function isJson(contentType: string | undefined): boolean {
  return contentType?.split(';')[0]!.trim().toLowerCase() === 'application/json'
}

export interface CallRefusal {
  status: 403 | 415
  kind: 'invalid-input' | 'unauthorized'
  message: string
}

const forbidden = (message: string): CallRefusal => ({ status: 403, kind: 'unauthorized', message })

/**
 * Why a call must not run, or null. A cross-site page can send a simple POST with our cookie (SameSite does not
 * separate ports), but it cannot send `application/json`, a foreign page's Origin is not ours, and it cannot read
 * the CSRF value. Clients that present the token itself (scripts, tests) prove more than a cookie does.
 */
export function refuseCall(
  req: IncomingMessage,
  source: TokenSource,
  csrfToken: string,
  port: number,
): CallRefusal | null {
  if (!isJson(headerValue(req, 'content-type')))
    return {
      status: 415,
      kind: 'invalid-input',
      message: 'Calls take a JSON body (content-type: application/json).',
    }
  const origin = headerValue(req, 'origin')
  if (origin !== undefined && !isOwnOrigin(origin, req.headers.host, port))
    return forbidden('Calls from another origin are refused.')
  const site = headerValue(req, 'sec-fetch-site')
  if (site !== undefined && site !== 'same-origin' && site !== 'none')
    return forbidden('Calls from another site are refused.')
  if (source !== 'cookie') return null
  // Browsers always send Origin on POST; a cookie-only request without one did not come from our page.
  if (origin === undefined) return forbidden('Calls from a browser must carry an Origin.')
  if (!sameToken(headerValue(req, CSRF_HEADER), csrfToken))
    return forbidden(`Calls must carry the ${CSRF_HEADER} header of this page.`)
  return null
}
