// Claude Code's login, found outside the sandbox, in Claude Code's own order: a token or key in the environment,
// then the subscription login (`~/.claude/.credentials.json`, OAuth), then a key chosen at /login (`~/.claude.json`). The session gets the matching variable set to the proxy's placeholder
// (CLAUDE_CODE_OAUTH_TOKEN for a subscription: Claude Code then sends it as a Bearer token with its OAuth beta
// header, which the proxy swaps for the real access token) and ANTHROPIC_BASE_URL pointing at the proxy.
//
// A subscription's access token expires (hours); Claude Code refreshes it with the refresh token, which never
// enters the session. The proxy reads the credentials file at each call, so a refresh the user's own `claude` made
// meanwhile is used; an expired one is refused with what to do.
import { join } from 'node:path'
import { LoginUnusable } from '../credentialProxy'
import { readRegularFile } from '../../workspace'
import type { EngineLogin, LoginContext } from '../types'
import { claudeCloudLogin } from './cloudLogin'

const DEFAULT_UPSTREAM = 'https://api.anthropic.com'
/** A token this close to its expiry is treated as expired (a long call would outlive it). */
const EXPIRY_MARGIN_MS = 60_000

const set = (v: string | undefined): string | null => (v !== undefined && v.trim() !== '' ? v.trim() : null)

async function readJson(path: string): Promise<Record<string, unknown> | null> {
  const read = await readRegularFile(path, { maxBytes: 4 * 1024 * 1024 })
  if (!read.ok) return null
  try {
    const value: unknown = JSON.parse(read.data.toString('utf8'))
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : null
  } catch (err) {
    if (err instanceof SyntaxError) return null // not JSON: no login there (Claude Code would not read it either)
    throw err
  }
}

/** Claude Code's config folder: CLAUDE_CONFIG_DIR, else ~/.claude. */
const configDir = (ctx: LoginContext) => set(ctx.env.CLAUDE_CONFIG_DIR) ?? join(ctx.userHome, '.claude')

interface OAuth {
  accessToken: string
  expiresAt: number | null
}

function oauthOf(creds: Record<string, unknown> | null): OAuth | null {
  const o = creds?.claudeAiOauth
  if (typeof o !== 'object' || o === null) return null
  const { accessToken, expiresAt } = o as Record<string, unknown>
  if (typeof accessToken !== 'string' || accessToken === '') return null
  return { accessToken, expiresAt: typeof expiresAt === 'number' ? expiresAt : null }
}

/** ANTHROPIC_CUSTOM_HEADERS ("Name: value" a line) as headers. */
export function customHeaders(value: string | undefined): Record<string, string> {
  const out: Record<string, string> = {}
  for (const line of (value ?? '').split(/\r?\n/)) {
    const at = line.indexOf(':')
    if (at <= 0) continue
    out[line.slice(0, at).trim().toLowerCase()] = line.slice(at + 1).trim()
  }
  return out
}

/** The upstream: ANTHROPIC_BASE_URL, else Ralph's Anthropic base URL (the AI SDK's, ending in /v1), else Anthropic's. */
export function claudeUpstream(ctx: LoginContext): string {
  const fromEnv = set(ctx.env.ANTHROPIC_BASE_URL)
  if (fromEnv) return fromEnv
  if (ctx.provider?.id === 'anthropic' && ctx.provider.baseUrl)
    return ctx.provider.baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '')
  return DEFAULT_UPSTREAM
}

export async function claudeCodeLogin(ctx: LoginContext): Promise<EngineLogin | null> {
  // A cloud provider (Bedrock, Vertex AI, Foundry) when one is selected: proxied the same way (./cloudLogin.ts).
  const cloud = await claudeCloudLogin(ctx)
  if (cloud) return cloud
  const upstream = claudeUpstream(ctx)
  const extraHeaders = customHeaders(ctx.env.ANTHROPIC_CUSTOM_HEADERS)
  const where = upstream === DEFAULT_UPSTREAM ? '' : ` → ${upstream}`
  const login = (
    source: string,
    variable: 'ANTHROPIC_AUTH_TOKEN' | 'ANTHROPIC_API_KEY' | 'CLAUDE_CODE_OAUTH_TOKEN',
    authHeaders: () => Promise<Record<string, string>>,
  ): EngineLogin => ({
    description: `${source}${where}`,
    upstream,
    authHeaders,
    extraHeaders,
    session: (proxy) => ({
      env: { ANTHROPIC_BASE_URL: proxy.url, [variable]: proxy.placeholder },
      args: [],
      files: {},
    }),
  })
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` })
  const apiKey = (key: string) => ({ 'x-api-key': key })

  const authToken = set(ctx.env.ANTHROPIC_AUTH_TOKEN)
  if (authToken) return login('ANTHROPIC_AUTH_TOKEN', 'ANTHROPIC_AUTH_TOKEN', async () => bearer(authToken))
  const key = set(ctx.env.ANTHROPIC_API_KEY)
  if (key) return login('ANTHROPIC_API_KEY', 'ANTHROPIC_API_KEY', async () => apiKey(key))
  const oauthToken = set(ctx.env.CLAUDE_CODE_OAUTH_TOKEN)
  if (oauthToken)
    return login('CLAUDE_CODE_OAUTH_TOKEN', 'CLAUDE_CODE_OAUTH_TOKEN', async () => bearer(oauthToken))
  const credentialsFile = join(configDir(ctx), '.credentials.json')
  if (oauthOf(await readJson(credentialsFile))) {
    return login('your Claude subscription login', 'CLAUDE_CODE_OAUTH_TOKEN', async () => {
      const now = oauthOf(await readJson(credentialsFile))
      if (!now) throw new LoginUnusable('Claude Code is no longer logged in. Run `claude`, then `/login`.')
      if (now.expiresAt !== null && now.expiresAt - EXPIRY_MARGIN_MS <= Date.now())
        throw new LoginUnusable(
          "Your Claude subscription login's access token has expired, and Ralph never gives a session your " +
            'refresh token. Run `claude` in a terminal once (it renews the login), then try again.',
        )
      return bearer(now.accessToken)
    })
  }
  const chosen = (await readJson(join(ctx.userHome, '.claude.json')))?.primaryApiKey
  if (typeof chosen === 'string' && chosen !== '')
    return login('the API key chosen at /login', 'ANTHROPIC_API_KEY', async () => apiKey(chosen))
  return null
}
