// `${NAME}` and `${NAME:-default}` in a server's env, headers, args and url (Claude Code's syntax). The values come
// from Ralph's vault only, never from the app's own environment: `.mcp.json` is a project file the model can write,
// and it must not be able to hand the user's keys to a server of its choosing.
import type { ServerConfig } from './config'

const PLACEHOLDER = /\$\{([A-Za-z_][A-Za-z0-9_.-]*)(?::-([^}]*))?\}/g

/** Looks a secret up by name (the vault's `mcp:NAME` entries); null when it is not stored. */
export type SecretLookup = (name: string) => string | null

/** The names a config refers to, for lists ("needs GITHUB_TOKEN"). */
export function placeholderNames(config: ServerConfig): string[] {
  const names = new Set<string>()
  for (const text of texts(config)) for (const m of text.matchAll(PLACEHOLDER)) names.add(m[1]!)
  return [...names]
}

function texts(config: ServerConfig): string[] {
  if ('url' in config) return [config.url, ...Object.values(config.headers ?? {})]
  return [config.command, ...(config.args ?? []), ...Object.values(config.env ?? {})]
}

/** The config with every placeholder filled in, or the names that have no value and no default. */
export function resolvePlaceholders(
  config: ServerConfig,
  lookup: SecretLookup,
): { config: ServerConfig } | { missing: string[] } {
  const missing = new Set<string>()
  const fill = (text: string) =>
    text.replace(PLACEHOLDER, (_all, name: string, fallback: string | undefined) => {
      const value = lookup(name)
      if (value !== null) return value
      if (fallback !== undefined) return fallback
      missing.add(name)
      return ''
    })
  const fillMap = (m: Record<string, string> | undefined) =>
    m === undefined ? undefined : Object.fromEntries(Object.entries(m).map(([k, v]) => [k, fill(v)]))
  const filled: ServerConfig =
    'url' in config
      ? { ...config, url: fill(config.url), ...(config.headers ? { headers: fillMap(config.headers) } : {}) }
      : {
          ...config,
          command: fill(config.command),
          ...(config.args ? { args: config.args.map(fill) } : {}),
          ...(config.env ? { env: fillMap(config.env) } : {}),
        }
  return missing.size > 0 ? { missing: [...missing] } : { config: filled }
}
