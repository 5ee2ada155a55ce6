// The MCP calls of the contract on a real core (what Settings will use): the list says where each server runs and
// never shows an env or header value; the switch, a start test, app-level servers and placeholder secrets.
import { existsSync, mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createCore, type Core } from '../../../src/main/api/core'
import type { McpList } from '../../../src/shared/api/mcp'
import { approveWithApi } from '../../helpers/mcpApproval'
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

    await approveWithApi(call, projectId)
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

  it('approve a project server as shown, ask again after a change, and keep an app-level name for the app', async () => {
    writeMcpJson(dir, {
      gh: {
        command: 'npx',
        args: ['-y', 'some-gh-server'],
        env: { GITHUB_TOKEN: '${GH_TOKEN}', MODE: 'fast' },
      },
      remote: {
        type: 'http',
        url: 'https://stranger.example/mcp',
        headers: { Authorization: 'Bearer ${GH_TOKEN}' },
      },
    })
    await call('mcp.setSecret', { name: 'GH_TOKEN', value: 'ghp_never_to_a_stranger' })
    let list = await call<McpList>('mcp.list', { projectId })
    const [gh, remote] = list.servers
    // Exactly what would run or be contacted, and the secrets it would get; a stranger until approved.
    expect(gh).toMatchObject({
      approval: 'waiting',
      secrets: ['GH_TOKEN'],
      detail: {
        kind: 'stdio',
        command: 'npx',
        args: ['-y', 'some-gh-server'],
        env: [
          { name: 'GITHUB_TOKEN', value: '${GH_TOKEN}' },
          { name: 'MODE', value: 'fast' },
        ],
      },
    })
    expect(remote).toMatchObject({
      approval: 'waiting',
      detail: { kind: 'remote', url: 'https://stranger.example/mcp', headers: ['Authorization'] },
    })
    expect(JSON.stringify(list)).not.toContain('ghp_never_to_a_stranger')
    // Not started, not even for a test.
    const tested = await call<{ ok: boolean; message: string }>('mcp.test', { projectId, server: 'remote' })
    expect(tested).toMatchObject({
      ok: false,
      message: expect.stringMatching(/waits for your approval.*ralph mcp approve remote/),
    })

    // The file changed after it was shown: the old fingerprint approves nothing.
    writeMcpJson(dir, {
      gh: {
        command: 'npx',
        args: ['-y', 'some-gh-server'],
        env: { GITHUB_TOKEN: '${GH_TOKEN}', MODE: 'slow' },
      },
    })
    await expect(
      call('mcp.approve', { projectId, server: 'gh', fingerprint: gh!.fingerprint }),
    ).rejects.toThrow(/changed since it was shown/)
    list = await call<McpList>('mcp.list', { projectId })
    list = await call<McpList>('mcp.approve', {
      projectId,
      server: 'gh',
      fingerprint: list.servers[0]!.fingerprint,
    })
    expect(list.servers[0]).toMatchObject({ name: 'gh', approval: 'approved' })
    // The same entry written another way (keys reordered, "type": "stdio") is the same server.
    writeMcpJson(dir, {
      gh: {
        env: { MODE: 'slow', GITHUB_TOKEN: '${GH_TOKEN}' },
        type: 'stdio',
        args: ['-y', 'some-gh-server'],
        command: 'npx',
      },
    })
    expect((await call<McpList>('mcp.list', { projectId })).servers[0]!.approval).toBe('approved')
    // Any change asks again.
    writeMcpJson(dir, {
      gh: {
        command: 'npx',
        args: ['-y', 'some-gh-server'],
        env: { GITHUB_TOKEN: '${GH_TOKEN}', MODE: 'slow', EXTRA: '1' },
      },
    })
    expect((await call<McpList>('mcp.list', { projectId })).servers[0]!.approval).toBe('changed')
    list = await call<McpList>('mcp.approve', {
      projectId,
      server: 'gh',
      fingerprint: (await call<McpList>('mcp.list', { projectId })).servers[0]!.fingerprint,
    })
    list = await call<McpList>('mcp.revoke', { projectId, server: 'gh' })
    expect(list.servers[0]!.approval).toBe('waiting')

    // A project entry named like an app-level server does not take its place.
    await call('mcp.saveServer', { projectId, name: 'gh', server: { command: 'my-own-gh' } })
    list = await call<McpList>('mcp.list', { projectId })
    expect(list.servers.map((s) => [s.name, s.origin, s.approval, s.target])).toEqual([
      ['gh', 'app', 'user', 'my-own-gh'],
    ])
    expect(list.problems).toEqual([
      {
        server: 'gh',
        message: expect.stringMatching(
          /server "gh" has the name of an app-level server, which is used instead/,
        ),
      },
    ])
    await expect(
      call('mcp.approve', { projectId, server: 'gh', fingerprint: 'a'.repeat(64) }),
    ).rejects.toThrow(/name of an app-level server.*Nothing was approved/)
  }, 60_000)
})
