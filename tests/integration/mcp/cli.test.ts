// `ralph mcp list|test|enable|disable|add|secret`: the real launcher in a child process, real servers in the sandbox.
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { runCli } from '../../helpers/cli'
import { approveWithCli } from '../../helpers/mcpApproval'
import { useFakeLlmCli } from '../../helpers/fakeLlmCli'
import { makeTempDir } from '../../helpers/tempDir'
import { done, parsed, tools } from '../loop/harness'
import { everythingServer, writeMcpJson, writeScript } from './fixtures'

let project: ReturnType<typeof makeTempDir>
let home: ReturnType<typeof makeTempDir>
const env = () => ({ RALPH_HOME: home.path, HOME: home.path })
const ralph = (...args: string[]) => runCli([...args, '--project', project.path], { env: env() })

beforeEach(() => {
  project = makeTempDir('ralph-mcp-cli-')
  home = makeTempDir('ralph-mcp-home-')
})
afterEach(() => {
  project.cleanup()
  home.cleanup()
})

describe('ralph mcp', () => {
  it('lists each server, where it runs, whether it is on, and its tools; names the broken entries', async () => {
    writeScript(project.path, 'crash.js', 'process.exit(4)\n')
    writeMcpJson(project.path, {
      everything: everythingServer,
      crash: { command: 'node', args: ['crash.js'] },
      remote: { type: 'http', url: 'http://127.0.0.1:9/mcp' },
      typo: { comand: 'node' },
    })
    await approveWithCli(project.path, env(), ['everything', 'crash', 'remote'])
    const off = await ralph('mcp', 'disable', 'remote')
    expect(off).toMatchObject({ code: 0, stdout: 'remote is off in this project.\n' })
    expect(JSON.parse(readFileSync(join(project.path, '.ralph/config.json'), 'utf8'))).toMatchObject({
      mcp: { disabled: ['remote'] },
    })

    const list = await ralph('mcp', 'list')
    expect(list.stderr).toBe('')
    expect(list.code).toBe(0)
    expect(list.stdout).toContain(
      '✔ everything  sandboxed stdio  .mcp.json  on\n    mcp__everything__echo  (read-only)\n',
    )
    expect(list.stdout).toContain('    mcp__everything__toggle-simulated-logging\n')
    expect(list.stdout).toContain(
      '✔ crash  sandboxed stdio  .mcp.json  on\n    ✗ does not start: it ended during set-up with exit code 4\n',
    )
    expect(list.stdout).toContain('✘ remote  remote http  .mcp.json  off in this project\n')
    expect(list.stdout).toContain('! .mcp.json: server "typo": "command" must be a string')

    const json = await ralph('mcp', 'list', '--json')
    expect(json.code).toBe(0)
    const parsed = JSON.parse(json.stdout) as {
      servers: {
        name: string
        sandboxed: boolean
        enabled: boolean
        started: { ok: boolean; tools: { modelName: string; readOnly: boolean }[] } | null
      }[]
    }
    expect(parsed.servers.map((s) => [s.name, s.sandboxed, s.enabled, s.started?.ok ?? null])).toEqual([
      ['everything', true, true, true],
      ['crash', true, true, false],
      ['remote', false, false, null],
    ])
    expect(parsed.servers[0]!.started!.tools).toContainEqual({
      name: 'echo',
      modelName: 'mcp__everything__echo',
      readOnly: true,
      description: expect.stringMatching(/echo/i),
    })
  }, 120_000)

  it('test NAME exits 0 with the tools of a server that starts, 1 with the reason of one that does not', async () => {
    writeScript(project.path, 'crash.js', 'process.stderr.write("bad token\\n"); process.exit(4)\n')
    writeMcpJson(project.path, {
      everything: everythingServer,
      crash: { command: 'node', args: ['crash.js'] },
    })
    await approveWithCli(project.path, env(), ['everything', 'crash'])
    const good = await ralph('mcp', 'test', 'everything')
    expect(good.code).toBe(0)
    expect(good.stdout).toMatch(/^✔ everything started \(sandboxed stdio\) with \d+ tool\(s\)\n/)
    expect(good.stdout).toContain('mcp__everything__get-sum  (read-only)')
    const bad = await ralph('mcp', 'test', 'crash')
    expect(bad.code).toBe(1)
    expect(bad.stderr).toBe(
      '✗ crash did not start: it ended during set-up with exit code 4; its last output: bad token\n',
    )
    const badJson = await ralph('mcp', 'test', 'crash', '--json')
    expect(badJson.code).toBe(1)
    expect(JSON.parse(badJson.stdout)).toMatchObject({ ok: false, server: 'crash', tools: [] })
    const missing = await ralph('mcp', 'test', 'nope')
    expect(missing.code).toBe(2)
    expect(missing.stderr).toContain('There is no MCP server "nope" (servers: everything, crash)')
  }, 120_000)

  it('keeps app-level servers and placeholder secrets in the vault, not the database', async () => {
    writeMcpJson(project.path, {
      keyed: {
        command: 'node',
        args: [everythingServer.args[0]!, 'stdio'],
        env: { TOKEN: '${EVERYTHING_TOKEN}' },
      },
    })
    await approveWithCli(project.path, env(), ['keyed'])
    const before = await ralph('mcp', 'list')
    expect(before.stdout).toContain('needs the secret(s) EVERYTHING_TOKEN')
    const stored = await runCli(['mcp', 'secret', 'EVERYTHING_TOKEN', '--project', project.path], {
      env: env(),
      input: 'tok-secret-31337\n',
    })
    expect(stored.code).toBe(0)
    const added = await ralph(
      'mcp',
      'add',
      'app-everything',
      '--command',
      'node',
      '--arg',
      everythingServer.args[0]!,
      '--arg',
      'stdio',
      '--env',
      'APP_KEY=app-secret-424242',
    )
    expect(added.code).toBe(0)
    const list = await ralph('mcp', 'list')
    expect(list.stdout).toContain('✔ keyed  sandboxed stdio  .mcp.json  on\n    mcp__keyed__echo')
    expect(list.stdout).toContain(
      '✔ app-everything  sandboxed stdio  app-level  on\n    mcp__app-everything__echo',
    )
    const db = ['ralph.db', 'ralph.db-wal']
      .filter((f) => existsSync(join(home.path, f)))
      .map((f) => readFileSync(join(home.path, f)).toString('latin1'))
      .join('')
    expect(db).not.toContain('tok-secret-31337')
    expect(db).not.toContain('app-secret-424242')
    expect(readFileSync(join(home.path, 'secrets.json'), 'utf8')).toContain('app-secret-424242')
  }, 120_000)
})

describe('ralph run with an MCP server', () => {
  const t = useFakeLlmCli()

  it('streams the server start and the MCP call (outside the snapshot) as NDJSON; app-level servers join', async () => {
    writeMcpJson(t.project.path, { everything: everythingServer })
    await approveWithCli(t.project.path, t.env, ['everything'])
    const add = await runCli(
      [
        'mcp',
        'add',
        'app',
        '--command',
        'node',
        '--arg',
        everythingServer.args[0]!,
        '--arg',
        'stdio',
        '--project',
        t.project.path,
      ],
      { env: t.env },
    )
    expect(add.code).toBe(0)
    t.llm.enqueue(
      parsed({ type: 'bugfix' }),
      tools(['mcp__everything__echo', { message: 'cli echo' }], ['mcp__app__get-sum', { a: 1, b: 2 }]),
      tools(['write_file', { path: 'fixed.txt', content: 'fixed\n' }]),
      done(),
    )
    const r = await runCli(['run', 'fix it', '--json', '--project', t.project.path], { env: t.env })
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    const events = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; [k: string]: unknown })
    expect(events.find((e) => e.type === 'mcp.servers')).toMatchObject({
      servers: [
        { server: 'everything', ok: true },
        { server: 'app', ok: true },
      ],
    })
    const mcpCalls = events.filter((e) => e.type === 'tool.called' && String(e.name).startsWith('mcp__'))
    expect(mcpCalls).toEqual([
      expect.objectContaining({
        name: 'mcp__everything__echo',
        ok: true,
        outsideSnapshot: true,
        summary: expect.stringContaining('cli echo'),
      }),
      expect.objectContaining({
        name: 'mcp__app__get-sum',
        ok: true,
        outsideSnapshot: true,
        summary: expect.stringContaining('3'),
      }),
    ])
    expect(events.at(-1)).toMatchObject({ type: 'task.completed' })
  }, 120_000)
})
