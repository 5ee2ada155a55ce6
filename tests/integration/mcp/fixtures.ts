// Real MCP servers from npm (devDependencies), started through a project's `.mcp.json` inside the sandbox.
import { mkdirSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'

const require = createRequire(import.meta.url)

/** The entry script of a server package (its `bin`), as a real path the sandbox can read. */
function serverScript(pkg: string): string {
  return join(dirname(require.resolve(`${pkg}/package.json`)), 'dist', 'index.js')
}

export const EVERYTHING = serverScript('@modelcontextprotocol/server-everything')
export const FILESYSTEM = serverScript('@modelcontextprotocol/server-filesystem')

/** server-everything over stdio. */
export const everythingServer = { command: 'node', args: [EVERYTHING, 'stdio'] }

export function writeMcpJson(projectDir: string, servers: Record<string, unknown>): void {
  writeFileSync(join(projectDir, '.mcp.json'), `${JSON.stringify({ mcpServers: servers }, null, 2)}\n`)
}

/** A node script in the project that a `.mcp.json` can point at (a server that crashes, say). */
export function writeScript(projectDir: string, rel: string, source: string): string {
  const file = join(projectDir, rel)
  mkdirSync(dirname(file), { recursive: true })
  writeFileSync(file, source)
  return file
}

/**
 * A minimal stdio MCP server (JSON-RPC lines) with one tool, `crash`, that exits the process when called: a
 * server that dies mid-task.
 */
export const DYING_SERVER = `
const rl = require('node:readline').createInterface({ input: process.stdin })
const send = (m) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', ...m }) + '\\n')
rl.on('line', (line) => {
  const m = JSON.parse(line)
  if (m.method === 'initialize')
    send({ id: m.id, result: { protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'dying', version: '1' } } })
  else if (m.method === 'tools/list')
    send({ id: m.id, result: { tools: [{ name: 'crash', description: 'Exits the server.', inputSchema: { type: 'object', properties: {} } }] } })
  else if (m.method === 'tools/call') {
    process.stderr.write('dying on purpose\\n')
    process.exit(7)
  }
})
`
