// Codex's login, found outside the sandbox (codex-cli 0.169.0, checked by running it):
// - the provider the user's config.toml selects (`model_provider`): one of their own `[model_providers.X]` with an
//   `env_key` gets that variable set to the placeholder and `-c model_providers.X.base_url=<proxy>`;
// - the built-in `openai` provider (the default): `codex exec` takes a key from CODEX_API_KEY (it ignores
//   OPENAI_API_KEY) or from its login file, and its base URL from `openai_base_url` (it ignores OPENAI_BASE_URL).
//   The session gets CODEX_API_KEY = the placeholder and `-c openai_base_url=<proxy>`; the proxy forwards to the
//   user's base URL (OPENAI_BASE_URL, Ralph's OpenAI base URL in Settings, their config's `openai_base_url`, or
//   OpenAI's) with the real key: CODEX_API_KEY, the key in `auth.json`, or OPENAI_API_KEY.
// - a ChatGPT login (`auth.json` with OAuth tokens): the session gets a stand-in auth.json whose tokens are
//   placeholders and whose ID token is an unsigned copy of the account's claims (email, plan, account id: what
//   Codex reads from it), and `openai_base_url` pointing at the proxy, which Codex then calls with
//   `Authorization: Bearer <placeholder>` and its `chatgpt-account-id` header; the proxy swaps in the real access
//   token, read from the user's auth.json at each call. The refresh token never enters the session, so Codex cannot
//   refresh inside it: an expired access token is refused with what to do (run `codex` once).
import { join } from 'node:path'
import { AppError } from '../../../shared/errors'
import { LoginUnusable } from '../credentialProxy'
import { readRegularFile } from '../../workspace'
import type { EngineLogin, LoginContext } from '../types'
import { topLevelString } from './model'
import { codexSelection } from './sessionConfig'
import { tomlString } from './toml'

const OPENAI_API = 'https://api.openai.com/v1'
const CHATGPT_API = 'https://chatgpt.com/backend-api/codex'
const EXPIRY_MARGIN_MS = 60_000

const set = (v: string | undefined | null): string | null =>
  typeof v === 'string' && v.trim() !== '' ? v.trim() : null

/** The user's Codex folder: CODEX_HOME, else ~/.codex. */
export const userCodexHome = (ctx: Pick<LoginContext, 'env' | 'userHome'>) =>
  set(ctx.env.CODEX_HOME) ?? join(ctx.userHome, '.codex')

async function readAuth(ctx: LoginContext): Promise<Record<string, unknown> | null> {
  const read = await readRegularFile(join(userCodexHome(ctx), 'auth.json'), { maxBytes: 1024 * 1024 })
  if (!read.ok) return null
  try {
    const value: unknown = JSON.parse(read.data.toString('utf8'))
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : null
  } catch (err) {
    if (err instanceof SyntaxError) return null // not JSON: Codex would not read it as a login either
    throw err
  }
}

interface ChatGptTokens {
  idToken: string
  accessToken: string
  accountId: string | null
}

function tokensOf(auth: Record<string, unknown> | null): ChatGptTokens | null {
  const t = auth?.tokens
  if (typeof t !== 'object' || t === null) return null
  const { id_token: idToken, access_token: accessToken, account_id: accountId } = t as Record<string, unknown>
  if (typeof accessToken !== 'string' || accessToken === '' || typeof idToken !== 'string') return null
  return { idToken, accessToken, accountId: typeof accountId === 'string' ? accountId : null }
}

/** A JWT's claims (unverified: Ralph only reads what Codex reads), or null when it is not one. */
export function jwtClaims(token: string): Record<string, unknown> | null {
  const part = token.split('.')[1]
  if (!part) return null
  try {
    const value: unknown = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'))
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : null
  } catch (err) {
    if (err instanceof SyntaxError) return null // not a JWT
    throw err
  }
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url')

/** The stand-in ID token: the account's identity claims, unsigned (it authorises nothing). */
export function standInIdToken(idToken: string): string {
  const claims = jwtClaims(idToken) ?? {}
  const keep: Record<string, unknown> = {}
  for (const name of ['email', 'email_verified', 'exp', 'iat', 'sub', 'https://api.openai.com/auth'])
    if (claims[name] !== undefined) keep[name] = claims[name]
  // Codex refuses a token without a third part; the "signature" says what this is.
  return `${b64({ alg: 'none', typ: 'JWT' })}.${b64(keep)}.${Buffer.from('ralph-stand-in').toString('base64url')}`
}

/**
 * The user's own provider (`[model_providers.X]`): proxied when it has a credential — a key from the environment
 * (`env_key`), an `experimental_bearer_token`, headers (`http_headers`, `env_http_headers` naming variables). The
 * proxy adds them all; the session's config keeps none (./sessionConfig.ts) and its key variable and bearer token
 * are the placeholder.
 */
export function customProviderLogin(ctx: LoginContext, configToml: string): EngineLogin | null {
  const { providerId, provider } = codexSelection(configToml)
  const str = (v: unknown) => (typeof v === 'string' ? set(v) : null)
  const table = (v: unknown) => (typeof v === 'object' && v !== null ? (v as Record<string, string>) : {})
  const envKey = str(provider.env_key)
  const baseUrl = str(provider.base_url)
  const key = (envKey ? set(ctx.env[envKey]) : null) ?? str(provider.experimental_bearer_token)
  const headers: Record<string, string> = {}
  for (const [name, value] of Object.entries(table(provider.http_headers)))
    headers[name.toLowerCase()] = value
  for (const [name, variable] of Object.entries(table(provider.env_http_headers))) {
    const value = set(ctx.env[variable])
    if (value) headers[name.toLowerCase()] = value
  }
  const otherQuery = Object.keys(table(provider.query_params)).filter((name) => name !== 'api-version')
  if (otherQuery.length > 0)
    throw new AppError(
      'config',
      `Your Codex provider "${providerId}" sends query parameters (${otherQuery.join(', ')}) that Ralph cannot keep ` +
        "out of a session's reach. Give it its key with env_key or http_headers instead, then try again.",
    )
  if (!baseUrl || (!key && Object.keys(headers).length === 0)) return null
  const source = key ? (envKey && set(ctx.env[envKey]) ? envKey : 'its bearer token') : 'its headers'
  const override = (field: string, value: string) => [
    '-c',
    `model_providers.${providerId}.${field}=${tomlString(value)}`,
  ]
  return {
    description: `${source} → ${baseUrl} (your provider "${providerId}")`,
    upstream: baseUrl,
    authHeaders: async (): Promise<Record<string, string>> => (key ? { authorization: `Bearer ${key}` } : {}),
    extraHeaders: headers,
    session: (proxy) => ({
      env: envKey ? { [envKey]: proxy.placeholder } : {},
      args: [
        ...override('base_url', proxy.url),
        ...(envKey ? [] : override('experimental_bearer_token', proxy.placeholder)),
      ],
      files: {},
    }),
  }
}

export async function codexLogin(ctx: LoginContext, configToml: string): Promise<EngineLogin | null> {
  const { providerId } = codexSelection(configToml)
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` })
  if (providerId !== 'openai') return customProviderLogin(ctx, configToml)
  const auth = await readAuth(ctx)
  const tokens = tokensOf(auth)
  const codexKey = set(ctx.env.CODEX_API_KEY)
  if (tokens && !codexKey) {
    const upstream = topLevelString(configToml, 'openai_base_url') ?? CHATGPT_API
    const standIn = (placeholder: string) =>
      JSON.stringify({
        OPENAI_API_KEY: null,
        tokens: {
          id_token: standInIdToken(tokens.idToken),
          access_token: placeholder,
          refresh_token: placeholder,
          account_id: tokens.accountId,
        },
        last_refresh: new Date().toISOString(),
      })
    return {
      description: `your ChatGPT login${upstream === CHATGPT_API ? '' : ` → ${upstream}`}`,
      upstream,
      // The ChatGPT backend refuses `max_output_tokens`: a cost cap refuses its calls but cannot bound them.
      boundsOutput: false,
      authHeaders: async () => {
        const now = tokensOf(await readAuth(ctx))
        if (!now) throw new LoginUnusable('Codex is no longer logged in. Run `codex login`.')
        const exp = jwtClaims(now.accessToken)?.exp
        if (typeof exp === 'number' && exp * 1000 - EXPIRY_MARGIN_MS <= Date.now())
          throw new LoginUnusable(
            "Your Codex (ChatGPT) login's access token has expired, and Ralph never gives a session your refresh " +
              'token. Run `codex` in a terminal once (it renews the login), then try again.',
          )
        return bearer(now.accessToken)
      },
      session: (proxy) => ({
        env: {},
        args: ['-c', `openai_base_url=${tomlString(proxy.url)}`],
        files: { '.codex/auth.json': standIn(proxy.placeholder) },
      }),
    }
  }
  const fileKey = typeof auth?.OPENAI_API_KEY === 'string' ? set(auth.OPENAI_API_KEY) : null
  const settings = ctx.provider?.id === 'openai' ? ctx.provider : null
  const found: [string, string | null][] = [
    ['CODEX_API_KEY', codexKey],
    ['the key in ~/.codex/auth.json', fileKey],
    ['OPENAI_API_KEY', set(ctx.env.OPENAI_API_KEY)],
  ]
  const [source, key] = found.find(([, k]) => k !== null) ?? ['', null]
  if (!key) return null
  const upstream =
    set(ctx.env.OPENAI_BASE_URL) ??
    set(settings?.baseUrl) ??
    topLevelString(configToml, 'openai_base_url') ??
    OPENAI_API
  return {
    description: `${source}${upstream === OPENAI_API ? '' : ` → ${upstream}`}`,
    upstream,
    authHeaders: async () => bearer(key),
    session: (proxy) => ({
      env: { CODEX_API_KEY: proxy.placeholder },
      args: ['-c', `openai_base_url=${tomlString(proxy.url)}`],
      files: {},
    }),
  }
}
