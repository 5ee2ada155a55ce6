import { randomBytes, timingSafeEqual } from 'node:crypto'
import type { IncomingMessage } from 'node:http'

export const TOKEN_COOKIE = 'ralph_token'
export const TOKEN_HEADER = 'x-ralph-token'

/** 256 random bits, new per launch (DESIGN.md §3 asks for at least 128). */
export function newToken(): string {
  return randomBytes(32).toString('base64url')
}

function cookieValue(header: string | undefined, name: string): string | null {
  if (!header) return null
  for (const part of header.split(';')) {
    const eq = part.indexOf('=')
    if (eq > 0 && part.slice(0, eq).trim() === name) return decodeURIComponent(part.slice(eq + 1).trim())
  }
  return null
}

export function sameToken(candidate: string | null | undefined, token: string): boolean {
  if (!candidate) return false
  const a = Buffer.from(candidate)
  const b = Buffer.from(token)
  return a.length === b.length && timingSafeEqual(a, b)
}

export type TokenSource = 'query' | 'header' | 'cookie'

/** Where the request carried the right token, or null: the query (first page load), a header, or the cookie. */
export function findToken(req: IncomingMessage, url: URL, token: string): TokenSource | null {
  if (sameToken(url.searchParams.get('token'), token)) return 'query'
  const header = req.headers[TOKEN_HEADER]
  if (sameToken(Array.isArray(header) ? header[0] : header, token)) return 'header'
  const auth = req.headers.authorization
  if (auth?.startsWith('Bearer ') && sameToken(auth.slice(7), token)) return 'header'
  if (sameToken(cookieValue(req.headers.cookie, TOKEN_COOKIE), token)) return 'cookie'
  return null
}

export function tokenCookie(token: string): string {
  return `${TOKEN_COOKIE}=${encodeURIComponent(token)}; HttpOnly; SameSite=Strict; Path=/`
}

/** Refuses requests whose Host is not our loopback address, which defeats DNS-rebinding pages. */
export function isLoopbackHost(hostHeader: string | undefined, port: number): boolean {
  if (!hostHeader) return false
  return [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`].includes(hostHeader.toLowerCase())
}
