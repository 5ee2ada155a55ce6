// Which model a Codex session uses, for pricing: `codex exec --json` never says (its events carry token counts
// only). It is the `-m` Ralph passes (the user's `engineModel`), else the `model` of the profile the user's
// config.toml selects, else its top-level `model`, else Codex's own default, which depends on its version and login
// (codex-cli 0.169.0 with an API-key provider asked for `gpt-6.1-sol`).

/** The text of one TOML table (`[name]`) up to the next table header, or '' when there is none. */
function tableOf(toml: string, header: RegExp): string {
  const lines = toml.split('\n')
  const start = lines.findIndex((l) => header.test(l.trim()))
  if (start < 0) return ''
  const end = lines.findIndex((l, i) => i > start && l.trim().startsWith('['))
  return lines.slice(start + 1, end < 0 ? undefined : end).join('\n')
}

const stringKey = (text: string, key: string): string | null =>
  new RegExp(`^\\s*${key}\\s*=\\s*"([^"\\n]*)"`, 'm').exec(text)?.[1] ?? null

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/**
 * The model the user's `~/.codex/config.toml` selects (the session home's copy), or null when it names none. Reads
 * only plain `key = "value"` lines, which is how Codex writes them.
 */
export function configuredCodexModel(configToml: string): string | null {
  const firstTable = configToml.search(/^\s*\[/m)
  const top = firstTable < 0 ? configToml : configToml.slice(0, firstTable)
  const profile = stringKey(top, 'profile')
  if (profile) {
    const name = escapeRegExp(profile)
    const model = stringKey(
      tableOf(configToml, new RegExp(`^\\[profiles\\.(?:${name}|"${name}")\\]$`)),
      'model',
    )
    if (model) return model
  }
  return stringKey(top, 'model')
}

/** A plain `key = "value"` before the config's first table, or null. */
export function topLevelString(configToml: string, key: string): string | null {
  const firstTable = configToml.search(/^\s*\[/m)
  return stringKey(firstTable < 0 ? configToml : configToml.slice(0, firstTable), escapeRegExp(key))
}

/** The plain string keys of `[model_providers.<id>]` (`base_url`, `env_key` …). */
export function providerTable(configToml: string, id: string): Record<string, string> {
  const name = escapeRegExp(id)
  const text = tableOf(configToml, new RegExp(`^\\[model_providers\\.(?:${name}|"${name}")\\]$`))
  const out: Record<string, string> = {}
  for (const m of text.matchAll(/^\s*([A-Za-z0-9_]+)\s*=\s*"([^"\n]*)"/gm)) out[m[1]!] = m[2]!
  return out
}
