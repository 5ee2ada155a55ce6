// A Google Cloud OAuth access token, made outside the sandbox from the user's credentials file (what
// GOOGLE_APPLICATION_CREDENTIALS names, or gcloud's application-default login): Ralph's credential proxy puts it on
// each Vertex AI call a session makes, so the file's private key or refresh token never enters the session.
//
// Two kinds of file are read, the two that Google's own tools write:
// - `service_account`: a JWT signed with the file's private key (RS256) is exchanged at its `token_uri` for an access
//   token (OAuth 2.0 JWT bearer grant, RFC 7523);
// - `authorized_user` (`gcloud auth application-default login`): its refresh token is exchanged at the token
//   endpoint (refresh_token grant).
// Any other kind (workload identity federation, impersonation) is refused with what to do instead.
import { createSign } from 'node:crypto'
import { join } from 'node:path'
import { readRegularFile, timeoutSignal } from '../../workspace'
import { LoginUnusable } from '../credentialProxy'

/** Vertex AI's scope. */
export const CLOUD_PLATFORM_SCOPE = 'https://www.googleapis.com/auth/cloud-platform'
const GOOGLE_TOKEN_URI = 'https://oauth2.googleapis.com/token'
/** A token this close to its expiry is made anew (a long model call would outlive it). */
const REFRESH_MARGIN_MS = 5 * 60_000
const TOKEN_CALL_MS = 30_000

export type GoogleCredentials =
  | {
      kind: 'service_account'
      clientEmail: string
      privateKey: string
      privateKeyId: string | null
      tokenUri: string
      projectId: string | null
    }
  | {
      kind: 'authorized_user'
      clientId: string
      clientSecret: string
      refreshToken: string
      tokenUri: string
      projectId: string | null
    }

/** Where Google's tools look for the credentials file: GOOGLE_APPLICATION_CREDENTIALS, else gcloud's ADC file. */
export function googleCredentialsPath(env: NodeJS.ProcessEnv, userHome: string): string {
  const named = env.GOOGLE_APPLICATION_CREDENTIALS?.trim()
  if (named) return named
  const config = env.CLOUDSDK_CONFIG?.trim() || join(userHome, '.config', 'gcloud')
  return join(config, 'application_default_credentials.json')
}

const str = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v.trim() : null)

/**
 * A token endpoint Ralph sends a private key's assertion or a refresh token to: https, or http on this machine only
 * (a local emulator or a test's fake), never plain http across a network.
 */
function checkedTokenUri(value: string, path: string): string {
  let url: URL
  try {
    url = new URL(value)
  } catch (err) {
    throw new Error(`The token_uri in ${path} is not a URL: ${value}.`, { cause: err })
  }
  const local = ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname)
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && local))
    throw new Error(`The token_uri in ${path} must be an https URL, not ${value}.`)
  return url.href
}

/** The credentials a file holds, or an error saying what is wrong with it and what to do. */
export function parseGoogleCredentials(text: string, path: string): GoogleCredentials {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (err) {
    throw new Error(`${path} is not a JSON credentials file.`, { cause: err })
  }
  const file = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>
  const type = str(file.type)
  if (type === 'service_account') {
    const clientEmail = str(file.client_email)
    const privateKey = str(file.private_key)
    if (!clientEmail || !privateKey)
      throw new Error(`The service account file ${path} lacks its client_email or private_key.`)
    return {
      kind: 'service_account',
      clientEmail,
      privateKey,
      privateKeyId: str(file.private_key_id),
      tokenUri: checkedTokenUri(str(file.token_uri) ?? GOOGLE_TOKEN_URI, path),
      projectId: str(file.project_id),
    }
  }
  if (type === 'authorized_user') {
    const clientId = str(file.client_id)
    const clientSecret = str(file.client_secret)
    const refreshToken = str(file.refresh_token)
    if (!clientId || !clientSecret || !refreshToken)
      throw new Error(`The login file ${path} lacks its client_id, client_secret or refresh_token.`)
    return {
      kind: 'authorized_user',
      clientId,
      clientSecret,
      refreshToken,
      tokenUri: checkedTokenUri(str(file.token_uri) ?? GOOGLE_TOKEN_URI, path),
      projectId: str(file.quota_project_id),
    }
  }
  throw new Error(
    `${path} holds credentials of type "${type ?? 'unknown'}", which Ralph cannot use for a session: ` +
      'point GOOGLE_APPLICATION_CREDENTIALS at a service account key file, or run ' +
      '`gcloud auth application-default login`.',
  )
}

export async function readGoogleCredentials(path: string): Promise<GoogleCredentials> {
  const read = await readRegularFile(path, { maxBytes: 256 * 1024 })
  if (!read.ok) {
    const what = read.reason === 'missing' ? 'No Google Cloud credentials file at' : 'Not a credentials file:'
    throw new Error(
      `${what} ${path}. Set GOOGLE_APPLICATION_CREDENTIALS to a service account key file, or run ` +
        '`gcloud auth application-default login`.',
    )
  }
  return parseGoogleCredentials(read.data.toString('utf8'), path)
}

const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url')

/** The signed JWT a service account exchanges for an access token (RFC 7523 §2.1). */
export function serviceAccountAssertion(
  creds: Extract<GoogleCredentials, { kind: 'service_account' }>,
  nowMs: number,
): string {
  const iat = Math.floor(nowMs / 1000)
  const header = { alg: 'RS256', typ: 'JWT', ...(creds.privateKeyId ? { kid: creds.privateKeyId } : {}) }
  const claims = {
    iss: creds.clientEmail,
    scope: CLOUD_PLATFORM_SCOPE,
    aud: creds.tokenUri,
    iat,
    exp: iat + 3600,
  }
  const unsigned = `${b64url(header)}.${b64url(claims)}`
  const signature = createSign('RSA-SHA256').update(unsigned).sign(creds.privateKey).toString('base64url')
  return `${unsigned}.${signature}`
}

function grantOf(creds: GoogleCredentials, nowMs: number): URLSearchParams {
  if (creds.kind === 'service_account')
    return new URLSearchParams({
      grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
      assertion: serviceAccountAssertion(creds, nowMs),
    })
  return new URLSearchParams({
    grant_type: 'refresh_token',
    client_id: creds.clientId,
    client_secret: creds.clientSecret,
    refresh_token: creds.refreshToken,
  })
}

export interface GoogleTokenSource {
  /** A valid access token: the last one while it has time left, else a new one. */
  token(): Promise<string>
}

/** Access tokens for `creds`, each made once and reused until close to its expiry. */
export function googleTokenSource(creds: GoogleCredentials, now: () => number = Date.now): GoogleTokenSource {
  let current: { token: string; expiresAt: number } | null = null
  let pending: Promise<string> | null = null
  const fetchToken = async (): Promise<string> => {
    const started = now()
    const res = await fetch(creds.tokenUri, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: grantOf(creds, started).toString(),
      signal: timeoutSignal(TOKEN_CALL_MS),
    })
    const text = await res.text()
    let body: Record<string, unknown> = {}
    try {
      body = JSON.parse(text) as Record<string, unknown>
    } catch (err) {
      if (!(err instanceof SyntaxError)) throw err // not JSON: said below with the status
    }
    const token = str(body.access_token)
    if (!res.ok || !token) {
      const why = str(body.error_description) ?? str(body.error) ?? `HTTP ${res.status}`
      throw new LoginUnusable(
        `Google refused Ralph's request for an access token for Vertex AI (${why}). Check the credentials in ` +
          'GOOGLE_APPLICATION_CREDENTIALS (or run `gcloud auth application-default login`), then try again.',
      )
    }
    const seconds = typeof body.expires_in === 'number' ? body.expires_in : 3600
    current = { token, expiresAt: started + seconds * 1000 }
    return token
  }
  return {
    token: () => {
      if (current && current.expiresAt - REFRESH_MARGIN_MS > now()) return Promise.resolve(current.token)
      // Calls at the same moment share one exchange.
      pending ??= fetchToken().finally(() => (pending = null))
      return pending
    },
  }
}
