// The MCP calls of the contract on a real core (what Settings will use): the list says where each server runs and
// never shows an env or header value; the switch, a start test, app-level servers and placeholder secrets.
import { existsSync, mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createCore, type Core } from '../../../src/main/api/core'
import type { McpList } from '../../../src/shared/api/mcp'
import { makeTempDir } from '../../helpers/tempDir'
import { everythingServer, writeMcpJson } from './fixtures'

let home: ReturnType<typeof makeTempDir>
let work: ReturnType<typeof makeTempDir>
let core: Core
let projectId: number
let dir: string

async function call<T = unknown>(name: string, input: unknown): Promise<T> {
  const result = await core.dispatch(name, input)
  if (!result.ok) throw Object.assign(new Error(result.error.message), { kind: result.error.kind })
  return result.value as T
}

beforeEach(async () => {
  home = makeTempDir('ralph-home-')
  work = makeTempDir()
  core = createCore({ appDataDir: home.path, env: {}, host: { kind: 'web', openedFrom: 'test' } })
  dir = join(work.path, 'app')
  mkdirSync(dir)
  projectId = (await call<{ id: number }>('projects.open', { path: dir })).id
})
afterEach(async () => {
  await core.close()
  home.cleanup()
  work.cleanup()
})

describe('the mcp.* calls', () => {
  it('list, switch, test, save and remove servers; values stay in the vault', async () => {
    writeMcpJson(dir, {
      everything: everythingServer,
      keyed: {
        type: 'http',
        url: 'https://mcp.example.com/mcp',
        headers: { Authorization: 'Bearer ${GH_TOKEN}' },
      },
    })
    let list = await call<McpList>('mcp.list', { projectId })
    expect(
      list.servers.map((s) => [s.name, s.origin, s.location, s.sandboxed, s.enabled, s.missingSecrets]),
    ).toEqual([
      ['everything', 'project', 'stdio', true, true, []],
      ['keyed', 'project', 'http', false, true, ['GH_TOKEN']],
    ])
    expect(list.servers[1]).toMatchObject({ target: 'https://mcp.example.com/mcp', keys: ['Authorization'] })

    await call('mcp.setSecret', { name: 'GH_TOKEN', value: 'ghp_api_secret_777' })
    list = await call<McpList>('mcp.setEnabled', { projectId, server: 'keyed', enabled: false })
    expect(list.servers[1]).toMatchObject({ enabled: false, missingSecrets: [] })

    const tested = await call<{ ok: boolean; tools: { modelName: string; readOnly: boolean }[] }>(
      'mcp.test',
      {
        projectId,
        server: 'everything',
      },
    )
    expect(tested.ok).toBe(true)
    expect(tested.tools).toContainEqual(
      expect.objectContaining({ modelName: 'mcp__everything__echo', readOnly: true }),
    )

    list = await call<McpList>('mcp.saveServer', {
      projectId,
      name: 'app-remote',
      server: {
        type: 'http',
        url: 'https://app.example.com/mcp',
        headers: { 'X-Key': 'app-header-secret-55' },
      },
    })
    expect(list.servers.at(-1)).toMatchObject({ name: 'app-remote', origin: 'app', keys: ['X-Key'] })
    expect(JSON.stringify(list)).not.toContain('app-header-secret-55')
    const db = ['ralph.db', 'ralph.db-wal']
      .filter((f) => existsSync(join(home.path, f)))
      .map((f) => readFileSync(join(home.path, f)).toString('latin1'))
      .join('')
    expect(db).not.toContain('app-header-secret-55')
    expect(db).not.toContain('ghp_api_secret_777')

    list = await call<McpList>('mcp.removeServer', { projectId, name: 'app-remote' })
    expect(list.servers.map((s) => s.name)).toEqual(['everything', 'keyed'])
    await expect(call('mcp.setEnabled', { projectId, server: 'nope', enabled: false })).rejects.toThrow(
      /no MCP server "nope"/,
    )
  }, 90_000)
})
