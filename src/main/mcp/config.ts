// The MCP servers a project declares in `.mcp.json` at its root (Claude Code's format, DESIGN.md §9):
// `{"mcpServers": {NAME: {command, args?, env?} | {type: "http" | "sse", url, headers?}}}`. Each server is checked
// on its own, so one mistake leaves the others usable and is reported with the server's name and field.
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { z } from 'zod'
import { isMissing } from '../workspace'
import { loaderVariables } from './loaderVariables'

export const MCP_FILE = '.mcp.json'

const stringMap = z.record(z.string(), z.string())
/** An env name the server's shell can export (it is set inside the sandbox by that shell, see launchLine.ts). */
const envName = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be a variable name (letters, digits and _)')

export const stdioServerSchema = z.object({
  type: z.literal('stdio').optional(),
  command: z.string().trim().min(1, 'must name the program to start (e.g. "npx" or "node")'),
  args: z.array(z.string()).optional(),
  env: z.record(envName, z.string()).optional(),
})

export const remoteServerSchema = z.object({
  type: z.enum(['http', 'sse']),
  url: z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// address' }),
  headers: stringMap.optional(),
})

export const serverConfigSchema = z.union([remoteServerSchema, stdioServerSchema])
export type StdioServerConfig = z.infer<typeof stdioServerSchema>
export type RemoteServerConfig = z.infer<typeof remoteServerSchema>
export type ServerConfig = z.infer<typeof serverConfigSchema>

/** Where a server was declared: the project's `.mcp.json` or the app-level list in Settings. */
export type ServerOrigin = 'project' | 'app'

export interface DeclaredServer {
  name: string
  origin: ServerOrigin
  config: ServerConfig
}

export interface ConfigProblem {
  /** The server the problem is about; null for the file as a whole. */
  server: string | null
  message: string
}

export interface ParsedServers {
  servers: DeclaredServer[]
  problems: ConfigProblem[]
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v)

function describe(issue: z.core.$ZodIssue): string {
  const at = issue.path.length > 0 ? `"${issue.path.join('.')}"` : 'the entry'
  if (issue.code === 'invalid_type') return `${at} must be ${article(issue.expected)}`
  if (issue.code === 'invalid_key') return `${at} ${issue.issues.map((i) => i.message).join('; ')}`
  return `${at} ${issue.message}`
}

const article = (type: string) => (type === 'object' || type === 'array' ? `an ${type}` : `a ${type}`)

/** One server's entry: which schema applies follows from its `type`, so the errors are that schema's. */
export function parseServerEntry(name: string, raw: unknown): { config: ServerConfig } | { problem: string } {
  if (!isObject(raw)) return { problem: `server "${name}" must be an object` }
  const remote = raw.type === 'http' || raw.type === 'sse'
  if (raw.type !== undefined && !remote && raw.type !== 'stdio') {
    return {
      problem: `server "${name}": "type" must be "stdio", "http" or "sse" (got ${JSON.stringify(raw.type)})`,
    }
  }
  const schema = remote ? remoteServerSchema : stdioServerSchema
  const parsed = schema.safeParse(raw)
  if (!parsed.success) return { problem: `server "${name}": ${parsed.error.issues.map(describe).join('; ')}` }
  return { config: parsed.data }
}

/** A project server whose env would make its programs load other code: refused, naming the variables. */
function loaderProblem(name: string, config: ServerConfig): string | null {
  if ('url' in config) return null
  const found = loaderVariables(Object.keys(config.env ?? {}))
  if (found.length === 0) return null
  return (
    `server "${name}": "env" sets ${found.join(', ')}, which make${found.length === 1 ? 's' : ''} a program load ` +
    "other code; a project's .mcp.json may not set loader or start-up variables. Remove it (a server that needs " +
    'one can set it in a script of its own), or add the server in Settings → MCP servers.'
  )
}

/** The text of an `.mcp.json` (or the same shape from elsewhere): its valid servers and what is wrong. */
export function parseMcpJson(text: string, origin: ServerOrigin, source = MCP_FILE): ParsedServers {
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (err) {
    if (!(err instanceof SyntaxError)) throw err
    return {
      servers: [],
      problems: [{ server: null, message: `${source} is not valid JSON (${err.message})` }],
    }
  }
  if (!isObject(json) || !isObject(json.mcpServers)) {
    return {
      servers: [],
      problems: [{ server: null, message: `${source} must be an object with "mcpServers": { NAME: { … } }` }],
    }
  }
  const servers: DeclaredServer[] = []
  const problems: ConfigProblem[] = []
  for (const [name, raw] of Object.entries(json.mcpServers)) {
    if (name.trim() === '') {
      problems.push({ server: name, message: `${source}: a server has an empty name` })
      continue
    }
    const entry = parseServerEntry(name, raw)
    const refused =
      'problem' in entry ? entry.problem : origin === 'project' ? loaderProblem(name, entry.config) : null
    if (refused !== null) problems.push({ server: name, message: `${source}: ${refused}` })
    else if ('config' in entry) servers.push({ name, origin, config: entry.config })
  }
  return { servers, problems }
}

/** The project's `.mcp.json`; none at all is no servers and no problem. */
export async function readProjectServers(projectDir: string): Promise<ParsedServers> {
  let text: string
  try {
    text = await readFile(join(projectDir, MCP_FILE), 'utf8')
  } catch (err) {
    if (isMissing(err)) return { servers: [], problems: [] }
    return {
      servers: [],
      problems: [{ server: null, message: `${MCP_FILE} could not be read: ${(err as Error).message}` }],
    }
  }
  return parseMcpJson(text, 'project')
}

/** Where a server runs, in words for lists: sandboxed stdio on this machine, or a remote address. */
export function serverLocation(config: ServerConfig): 'stdio' | 'http' | 'sse' {
  return 'url' in config ? config.type : 'stdio'
}
