// What a Codex session gets of the user's `~/.codex/config.toml`: only the settings it needs, read through an
// allowlist, never the file itself. The file may hold secrets in reach of the model otherwise: a provider's
// `http_headers`, `env_http_headers`, `experimental_bearer_token` or query parameters, MCP servers' `env`, a
// `notify` command, a shell environment policy's values. A session keeps:
// - the model choices (`model`, `model_reasoning_effort` …), the selected profile's flattened onto them;
// - `[features]` switches (booleans only);
// - the selected custom provider's plain fields (`name`, `base_url`, `env_key` — the name only, `wire_api`, retry
//   settings, the `api-version` query parameter); its key, bearer token and headers reach the provider only through
//   Ralph's credential proxy (./login.ts).
// The reader takes the forms Codex writes (`key = value` lines under `[table]` headers, inline tables of strings);
// anything else is left out, which can lose a setting but never passes a secret on.
import { tomlString } from './toml'

type Scalar = string | number | boolean

const TOP_LEVEL = new Set([
  'model',
  'model_provider',
  'model_reasoning_effort',
  'model_reasoning_summary',
  'model_verbosity',
  'model_context_window',
  'model_auto_compact_token_limit',
  'service_tier',
])
const PROVIDER_FIELDS = new Set([
  'name',
  'base_url',
  'env_key',
  'wire_api',
  'request_max_retries',
  'stream_max_retries',
  'stream_idle_timeout_ms',
  'requires_openai_auth',
  'supports_websockets',
])
/** Query parameters that select an API version (Azure's), not a caller: the only ones kept. */
const QUERY_PARAMS = new Set(['api-version'])

export interface TomlTables {
  /** Each table's `key = value` lines, by its name with quotes removed ('' for the top level). */
  [table: string]: Record<string, Scalar | Record<string, string>>
}

const unquote = (name: string) => name.replace(/\s+/g, '').replace(/"/g, '').replace(/'/g, '')

function parseString(raw: string): string | null {
  if (raw.startsWith("'")) return /^'([^'\n]*)'$/.exec(raw)?.[1] ?? null
  if (!/^"(?:[^"\\\n]|\\.)*"$/.test(raw)) return null
  try {
    // A TOML basic string's escapes are JSON's (but \e and \xHH, which are then left out).
    return JSON.parse(raw) as string
  } catch (err) {
    if (err instanceof SyntaxError) return null
    throw err
  }
}

/**
 * A scalar value or an inline table of strings, a trailing comment ignored; null for anything else (arrays,
 * multi-line values).
 */
function parseValue(raw: string): Scalar | Record<string, string> | null {
  const string = /^("(?:[^"\\\n]|\\.)*"|'[^'\n]*')\s*(#.*)?$/.exec(raw)
  if (string) return parseString(string[1]!)
  const table = /^(\{.*\})\s*(#[^}]*)?$/.exec(raw)
  const value = table ? table[1]! : raw.replace(/\s*#.*$/, '').trim()
  if (value === 'true' || value === 'false') return value === 'true'
  if (/^[+-]?\d[\d_]*(\.\d+)?([eE][+-]?\d+)?$/.test(value)) return Number(value.replace(/_/g, ''))
  if (value.startsWith('{')) {
    if (!value.endsWith('}')) return null
    const out: Record<string, string> = {}
    for (const m of value
      .slice(1, -1)
      .matchAll(/\s*("[^"]*"|'[^']*'|[A-Za-z0-9_-]+)\s*=\s*("(?:[^"\\]|\\.)*"|'[^']*')\s*,?/g)) {
      const v = parseString(m[2]!)
      if (v !== null) out[unquote(m[1]!)] = v
    }
    return out
  }
  return null
}

/** The `key = value` lines of a config, by table (a line whose value is not one of the forms above is skipped). */
export function readTomlTables(text: string): TomlTables {
  const tables: TomlTables = { '': {} }
  let current = tables['']!
  for (const line of text.split(/\r?\n/)) {
    const header = /^\s*\[([^[\]]+)\]\s*(#.*)?$/.exec(line)
    if (header) {
      current = tables[unquote(header[1]!)] ??= {}
      continue
    }
    if (/^\s*\[\[/.test(line)) {
      current = {} // an array of tables: nothing a session keeps
      continue
    }
    const kv = /^\s*("[^"]+"|[A-Za-z0-9_-]+)\s*=\s*(.*?)\s*$/.exec(line)
    if (!kv) continue
    const value = parseValue(kv[2]!)
    if (value !== null) current[unquote(kv[1]!)] = value
  }
  return tables
}

export interface CodexSelection {
  /** The provider the config selects (`openai` when it names none). */
  providerId: string
  /** Its table (`[model_providers.<id>]`), with `http_headers` / `env_http_headers` / `query_params` subtables. */
  provider: Record<string, Scalar | Record<string, string>>
  /** The top-level settings a session keeps, the selected profile's applied. */
  settings: Record<string, Scalar>
  features: Record<string, boolean>
}

export function codexSelection(configToml: string): CodexSelection {
  const tables = readTomlTables(configToml)
  const top = tables['']!
  const settings: Record<string, Scalar> = {}
  const keep = (from: Record<string, unknown>) => {
    for (const [key, value] of Object.entries(from))
      if (TOP_LEVEL.has(key) && typeof value !== 'object') settings[key] = value as Scalar
  }
  keep(top)
  if (typeof top.profile === 'string') keep(tables[`profiles.${unquote(top.profile)}`] ?? {})
  const providerId = typeof settings.model_provider === 'string' ? settings.model_provider : 'openai'
  const prefix = `model_providers.${unquote(providerId)}`
  const provider = { ...(tables[prefix] ?? {}) }
  for (const sub of ['http_headers', 'env_http_headers', 'query_params']) {
    const table = tables[`${prefix}.${sub}`]
    if (table)
      provider[sub] = Object.fromEntries(
        Object.entries(table).filter(([, v]) => typeof v === 'string'),
      ) as Record<string, string>
  }
  const features: Record<string, boolean> = {}
  for (const [key, value] of Object.entries(tables.features ?? {}))
    if (typeof value === 'boolean') features[key] = value
  return { providerId, provider, settings, features }
}

const bareKey = (key: string) => (/^[A-Za-z0-9_-]+$/.test(key) ? key : tomlString(key))
const tomlValue = (value: Scalar) => (typeof value === 'string' ? tomlString(value) : String(value))

/** The session's config.toml: the allowlisted settings of the user's, and nothing else. */
export function sessionCodexConfig(configToml: string): string {
  const { providerId, provider, settings, features } = codexSelection(configToml)
  const lines = [
    "# Written by Ralph for one session from your ~/.codex/config.toml: only the model's settings (no credentials,",
    '# headers, MCP servers or commands). The login reaches the provider through Ralph, outside the sandbox.',
  ]
  for (const [key, value] of Object.entries(settings)) lines.push(`${key} = ${tomlValue(value)}`)
  if (Object.keys(features).length > 0) {
    lines.push('', '[features]')
    for (const [key, value] of Object.entries(features)) lines.push(`${bareKey(key)} = ${value}`)
  }
  const fields = Object.entries(provider).filter(
    ([key, value]) => PROVIDER_FIELDS.has(key) && typeof value !== 'object',
  )
  const query = Object.entries((provider.query_params as Record<string, string> | undefined) ?? {}).filter(
    ([k]) => QUERY_PARAMS.has(k),
  )
  if (providerId !== 'openai' && fields.length > 0) {
    lines.push('', `[model_providers.${bareKey(providerId)}]`)
    for (const [key, value] of fields) lines.push(`${key} = ${tomlValue(value as Scalar)}`)
    if (query.length > 0)
      lines.push(
        `query_params = {${query.map(([k, v]) => `${tomlString(k)} = ${tomlString(v)}`).join(', ')}}`,
      )
  }
  return `${lines.join('\n')}\n`
}
