// The "Add an MCP server" form of Settings: its fields as typed, and what they become for `mcp.saveServer` — or,
// per field, what is wrong in words the user can act on.

export type McpKind = 'stdio' | 'http'

export interface McpDraft {
  kind: McpKind
  name: string
  command: string
  /** One argument a line. */
  args: string
  /** NAME=value, one a line. */
  env: string
  url: string
  /** Name: value, one a line. */
  headers: string
}

export const emptyDraft: McpDraft = {
  kind: 'stdio',
  name: '',
  command: '',
  args: '',
  env: '',
  url: '',
  headers: '',
}

export type McpServerInput =
  | { command: string; args?: string[]; env?: Record<string, string> }
  | { type: 'http'; url: string; headers?: Record<string, string> }

export type DraftErrors = Partial<Record<'name' | 'command' | 'env' | 'url' | 'headers', string>>

const lines = (text: string) =>
  text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '')

/** `NAME=value` (env) or `Name: value` (headers) lines as a map, or the first line that is neither. */
function pairs(text: string, sep: '=' | ':', key: RegExp): Record<string, string> | { badLine: number } {
  const out: Record<string, string> = {}
  const all = text.split('\n')
  for (let i = 0; i < all.length; i++) {
    const line = all[i]!.trim()
    if (line === '') continue
    const at = line.indexOf(sep)
    const k = at > 0 ? line.slice(0, at).trim() : ''
    if (!key.test(k)) return { badLine: i + 1 }
    out[k] = line.slice(at + 1).trim()
  }
  return out
}

const ENV_KEY = /^[A-Za-z_][A-Za-z0-9_]*$/
const HEADER_KEY = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/

/** An http(s) address with a host (the core checks the rest when it connects). */
const validUrl = (text: string): boolean => /^https?:\/\/[^\s/?#]+[^\s]*$/i.test(text)

/** The server to save, or what is wrong with each field. `taken`: names of the app-level servers already there. */
export function readDraft(
  d: McpDraft,
  taken: string[],
): { server: McpServerInput; name: string } | { errors: DraftErrors } {
  const errors: DraftErrors = {}
  const name = d.name.trim()
  if (name === '') errors.name = 'Give the server a name, e.g. github.'
  else if (name.length > 100) errors.name = 'Keep the name under 100 characters.'
  else if (taken.includes(name)) errors.name = `There is already a server called “${name}”.`
  let server: McpServerInput | null = null
  if (d.kind === 'stdio') {
    const command = d.command.trim()
    if (command === '') errors.command = 'Enter the program that starts the server, e.g. node or npx.'
    const env = pairs(d.env, '=', ENV_KEY)
    if ('badLine' in env) errors.env = `Line ${String(env.badLine)}: write NAME=value.`
    else if (command !== '') {
      const args = lines(d.args)
      server = {
        command,
        ...(args.length ? { args } : {}),
        ...(Object.keys(env).length ? { env: env as Record<string, string> } : {}),
      }
    }
  } else {
    const url = d.url.trim()
    if (!validUrl(url)) errors.url = 'Enter the server’s address, starting with https:// (or http://).'
    const headers = pairs(d.headers, ':', HEADER_KEY)
    if ('badLine' in headers) errors.headers = `Line ${String(headers.badLine)}: write Name: value.`
    else if (!errors.url) {
      server = {
        type: 'http',
        url,
        ...(Object.keys(headers).length ? { headers: headers as Record<string, string> } : {}),
      }
    }
  }
  if (Object.keys(errors).length > 0 || !server) return { errors }
  return { server, name }
}
