import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { FileVault } from '../secrets/fileVault'
import { useTempDatabase } from '../store/testkit'
import { useTempDir } from '../workspace/testkit'
import { initRalphDir } from '../workspace/initRalphDir'
import { AppMcpServers } from './appServers'
import { approveServer } from './approve'
import { listServers, serversToStart } from './sources'
import { disabledServers, setServerEnabled } from './switches'

const t = useTempDatabase('ralph-mcp-app-')
const project = useTempDir('ralph-mcp-project-')

const dbText = () => readFileSync(join(t.dir, 'ralph.db')).toString('latin1') + readWal()
const readWal = () => {
  try {
    return readFileSync(join(t.dir, 'ralph.db-wal')).toString('latin1')
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return ''
    throw err
  }
}

describe('app-level MCP servers', () => {
  it('keep env and header values in the vault, never in SQLite', () => {
    const vault = new FileVault(t.dir)
    const app = new AppMcpServers(t.db, vault)
    app.set('github', {
      command: 'npx',
      args: ['-y', 'gh-server'],
      env: { GITHUB_TOKEN: 'ghp_secretvalue123456' },
    })
    app.set('remote', {
      type: 'http',
      url: 'https://mcp.example.com',
      headers: { Authorization: 'Bearer tok-98765' },
    })
    app.setSecret('SHARED', 'shared-secret-4242')
    expect(app.list()).toEqual([
      {
        name: 'github',
        origin: 'app',
        config: { command: 'npx', args: ['-y', 'gh-server'], env: { GITHUB_TOKEN: 'ghp_secretvalue123456' } },
      },
      {
        name: 'remote',
        origin: 'app',
        config: {
          type: 'http',
          url: 'https://mcp.example.com',
          headers: { Authorization: 'Bearer tok-98765' },
        },
      },
    ])
    t.db.pragma('wal_checkpoint(TRUNCATE)')
    const text = dbText()
    expect(text).toContain('gh-server')
    for (const secret of ['ghp_secretvalue123456', 'tok-98765', 'shared-secret-4242'])
      expect(text).not.toContain(secret)
    expect(readFileSync(join(t.dir, 'secrets.json'), 'utf8')).toContain('ghp_secretvalue123456')
    expect(app.remove('github')).toBe(true)
    expect(readFileSync(join(t.dir, 'secrets.json'), 'utf8')).not.toContain('ghp_secretvalue123456')
    expect(() => app.set('bad', { type: 'http' })).toThrow(/server "bad": "url"/)
  })

  it('join the project’s servers; an app-level name stays the app’s; approvals, switches and secrets apply', async () => {
    await initRalphDir(project.path, { openedFrom: 'test' })
    const app = new AppMcpServers(t.db, new FileVault(t.dir))
    app.set('shared', { command: 'app-version' })
    app.set('apponly', { type: 'http', url: 'https://x.example/mcp' })
    writeFileSync(
      join(project.path, '.mcp.json'),
      JSON.stringify({
        mcpServers: {
          shared: { command: 'project-version' },
          needsKey: { command: 'node', env: { KEY: '${API_KEY}' } },
          broken: { args: [] },
        },
      }),
    )
    const list = await listServers(project.path, app)
    expect(
      list.servers.map((s) => [s.name, s.origin, s.location, s.enabled, s.missingSecrets, s.approval]),
    ).toEqual([
      ['needsKey', 'project', 'stdio', true, ['API_KEY'], 'waiting'],
      ['shared', 'app', 'stdio', true, [], 'user'],
      ['apponly', 'app', 'http', true, [], 'user'],
    ])
    expect(list.problems.map((p) => p.server)).toEqual(['broken', 'shared'])

    await setServerEnabled(project.path, 'apponly', false)
    expect(await disabledServers(project.path)).toEqual(['apponly'])
    let start = await serversToStart(project.path, app)
    expect(start.servers.map((s) => [s.name, s.config])).toEqual([['shared', { command: 'app-version' }]])
    expect(start.refused).toEqual([
      { server: 'broken', message: expect.stringMatching(/"command"/) },
      { server: 'shared', message: expect.stringMatching(/has the name of an app-level server/) },
      { server: 'needsKey', message: expect.stringMatching(/waits for your approval/) },
    ])

    // Approved, it still needs its secret; with it, it starts with the vault's value.
    await approveServer(project.path, app, 'needsKey')
    start = await serversToStart(project.path, app)
    expect(start.refused.at(-1)).toEqual({
      server: 'needsKey',
      message: expect.stringMatching(/the secret API_KEY/),
    })
    app.setSecret('API_KEY', 'k-1')
    await setServerEnabled(project.path, 'apponly', true)
    start = await serversToStart(project.path, app)
    expect(start.servers.map((s) => s.name)).toEqual(['needsKey', 'shared', 'apponly'])
    expect(start.servers[0]!.config).toEqual({ command: 'node', env: { KEY: 'k-1' } })
  })
})
