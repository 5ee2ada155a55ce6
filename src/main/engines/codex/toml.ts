// Values for Codex's `-c key=value` overrides. Codex parses `value` as TOML (and falls back to the raw text when it
// does not parse), so every value Ralph passes is written as a TOML literal: a basic string with every control
// character escaped, an array of them, or an inline table of them.

/** A TOML basic string: `"…"` with `\`, `"` and every control character escaped. */
export function tomlString(value: string): string {
  let out = '"'
  for (const ch of value) {
    const code = ch.codePointAt(0)!
    if (ch === '"') out += '\\"'
    else if (ch === '\\') out += '\\\\'
    else if (ch === '\n') out += '\\n'
    else if (ch === '\t') out += '\\t'
    else if (ch === '\r') out += '\\r'
    else if (code < 0x20 || code === 0x7f) out += `\\u${code.toString(16).padStart(4, '0')}`
    else out += ch
  }
  return out + '"'
}

export function tomlStringArray(values: string[]): string {
  return `[${values.map(tomlString).join(', ')}]`
}

/** An inline table of strings, each key quoted (environment names may hold characters a bare key cannot). */
export function tomlStringTable(values: Record<string, string>): string {
  const entries = Object.entries(values).map(([k, v]) => `${tomlString(k)} = ${tomlString(v)}`)
  return `{${entries.join(', ')}}`
}
