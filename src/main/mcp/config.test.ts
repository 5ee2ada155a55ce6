import { describe, expect, it } from 'vitest'
import { parseMcpJson, serverLocation } from './config'
import { splitMcpToolName } from '../../shared/mcpTools'
import { mcpToolName } from './names'
import { placeholderNames, resolvePlaceholders } from './placeholders'

const parse = (value: unknown) => parseMcpJson(JSON.stringify(value), 'project')

describe('.mcp.json', () => {
  it('reads stdio and remote servers in Claude Code’s format', () => {
    const r = parse({
      mcpServers: {
        files: { command: 'npx', args: ['-y', 'server'], env: { ROOT: '.' } },
        plain: { type: 'stdio', command: 'node' },
        remote: {
          type: 'http',
          url: 'https://mcp.example.com/mcp',
          headers: { Authorization: 'Bearer ${TOKEN}' },
        },
        events: { type: 'sse', url: 'http://127.0.0.1:9000/sse' },
      },
    })
    expect(r.problems).toEqual([])
    expect(r.servers.map((s) => [s.name, serverLocation(s.config)])).toEqual([
      ['files', 'stdio'],
      ['plain', 'stdio'],
      ['remote', 'http'],
      ['events', 'sse'],
    ])
    expect(r.servers[0]).toEqual({
      name: 'files',
      origin: 'project',
      config: { command: 'npx', args: ['-y', 'server'], env: { ROOT: '.' } },
    })
  })

  it('names the server and the field of each mistake, and keeps the servers that are right', () => {
    const r = parse({
      mcpServers: {
        good: { command: 'node' },
        noCommand: { args: ['x'] },
        badArgs: { command: 'node', args: 'x' },
        badUrl: { type: 'http', url: 'ftp://x' },
        badType: { type: 'websocket', url: 'ws://x' },
        badEnv: { command: 'node', env: { PORT: 8080 } },
        notObject: 'node server.js',
      },
    })
    expect(r.servers.map((s) => s.name)).toEqual(['good'])
    const byServer = Object.fromEntries(r.problems.map((p) => [p.server, p.message]))
    expect(byServer.noCommand).toMatch(/server "noCommand": "command" must be a string/)
    expect(byServer.badArgs).toMatch(/server "badArgs": "args" must be an array/)
    expect(byServer.badUrl).toMatch(/server "badUrl": "url" must be an http:\/\/ or https:\/\/ address/)
    expect(byServer.badType).toMatch(/server "badType": "type" must be "stdio", "http" or "sse"/)
    expect(byServer.badEnv).toMatch(/server "badEnv": "env.PORT" must be a string/)
    expect(byServer.notObject).toMatch(/server "notObject" must be an object/)
    for (const p of r.problems) expect(p.message).toMatch(/^\.mcp\.json: /)
  })

  it('reports a file that is not JSON or has no mcpServers', () => {
    expect(parseMcpJson('{ nope', 'project').problems[0]!.message).toMatch(/\.mcp\.json is not valid JSON/)
    expect(parse({ servers: {} }).problems[0]!.message).toMatch(/must be an object with "mcpServers"/)
    expect(parse({ mcpServers: [] }).servers).toEqual([])
  })

  it("refuses a project's loader and start-up variables (any case), and env names a shell cannot set", () => {
    const env = { LD_PRELOAD: 'x', dyld_insert_libraries: 'x', BASH_ENV: 'x', PYTHONSTARTUP: 'x', OK: '1' }
    const r = parse({
      mcpServers: { bad: { command: 'true', env }, odd: { command: 'true', env: { 'A-B': '1' } } },
    })
    expect(r.servers).toEqual([])
    expect(r.problems[0]!.message).toMatch(
      /^\.mcp\.json: server "bad": "env" sets LD_PRELOAD, dyld_insert_libraries, BASH_ENV, PYTHONSTARTUP, which make /,
    )
    expect(r.problems[1]!.message).toMatch(/server "odd": "env.A-B" .*must be a variable name/)
    // The user's own (app-level) servers may set them: their env applies inside the sandbox only.
    expect(
      parseMcpJson(JSON.stringify({ mcpServers: { bad: { command: 'true', env } } }), 'app').servers,
    ).toHaveLength(1)
  })
})

describe('placeholders', () => {
  const vault: Record<string, string> = { TOKEN: 'secret-1', ROOT: '/data' }
  const lookup = (name: string) => vault[name] ?? null

  it('fill ${NAME} and ${NAME:-default} from the vault only', () => {
    const config = {
      command: 'node',
      args: ['server.js', '${ROOT}'],
      env: { API_TOKEN: '${TOKEN}', MODE: '${MODE:-fast}' },
    }
    expect(placeholderNames(config)).toEqual(['ROOT', 'TOKEN', 'MODE'])
    expect(resolvePlaceholders(config, lookup)).toEqual({
      config: { command: 'node', args: ['server.js', '/data'], env: { API_TOKEN: 'secret-1', MODE: 'fast' } },
    })
    const remote = {
      type: 'http' as const,
      url: 'https://x/${MISSING}',
      headers: { A: '${TOKEN}', B: '${ALSO}' },
    }
    expect(resolvePlaceholders(remote, lookup)).toEqual({ missing: ['MISSING', 'ALSO'] })
  })
})

describe('tool names', () => {
  it('are mcp__<server>__<tool> in the model-tool charset, at most 64 characters', () => {
    expect(mcpToolName('everything', 'echo')).toBe('mcp__everything__echo')
    expect(mcpToolName('my server', 'get.sum/v2')).toBe('mcp__my_server__get_sum_v2')
    expect(mcpToolName('s', 'x'.repeat(100))).toHaveLength(64)
    expect(mcpToolName('s', 'x'.repeat(100))).toMatch(/^[A-Za-z0-9_-]+$/)
    expect(splitMcpToolName('mcp__my_server__get_sum_v2')).toEqual({
      server: 'my_server',
      tool: 'get_sum_v2',
    })
    expect(splitMcpToolName('read_file')).toBeNull()
    expect(splitMcpToolName(mcpToolName('a__b', 'c__d'))).toEqual({ server: 'a_b', tool: 'c__d' })
  })
})
