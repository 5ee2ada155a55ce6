// Issue 27: MCP servers started through `.mcp.json` inside the sandbox (real bubblewrap, real servers from npm).
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { McpSession, readProjectServers } from '../../../src/main/mcp'
import { sandboxSupport } from '../../../src/main/sandbox'
import { scratchHome } from '../../../src/main/sandbox/home'
import { removeDir, tempDir } from '../../../src/main/tools/testkit'
import { initRalphDir } from '../../../src/main/workspace/initRalphDir'
import { memoryLogger } from '../../../src/main/workspace/logFile'
import { DYING_SERVER, EVERYTHING, everythingServer, FILESYSTEM, writeMcpJson, writeScript } from './fixtures'
import { processesWithArg, waitFor } from '../../../src/main/sandbox/testkit'
import { spawn } from 'node:child_process'
import { createServer } from 'node:net'

/** A port nothing listens on right now. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer()
    srv.once('error', reject)
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number }
      srv.close(() => resolve(port))
    })
  })
}

let project: string
let session: McpSession | null = null
const logger = memoryLogger()
const live = () => new AbortController().signal

async function start(env: NodeJS.ProcessEnv = process.env, timeoutMs?: number): Promise<McpSession> {
  const { servers, problems } = await readProjectServers(project)
  expect(problems).toEqual([])
  session = await McpSession.start(servers, { projectDir: project, env, logger, timeoutMs })
  return session
}

beforeAll(async () => {
  expect((await sandboxSupport()).kind).toBe('bubblewrap')
})

beforeEach(async () => {
  project = tempDir('ralph-mcp-')
  await initRalphDir(project, { openedFrom: 'mcp test' })
})

afterEach(async () => {
  await session?.close()
  session = null
  removeDir(await scratchHome(project))
  removeDir(project)
})

describe('an MCP session', () => {
  it('starts server-everything in the sandbox, names its tools mcp__everything__*, and calls echo', async () => {
    writeMcpJson(project, { everything: everythingServer })
    const s = await start()
    expect(s.starts).toEqual([{ server: 'everything', ok: true, tools: expect.any(Number), message: '' }])
    expect(s.toolNames).toContain('mcp__everything__echo')
    expect(s.toolNames).toContain('mcp__everything__get-sum')
    const tools = s.modelTools()
    expect(tools.mcp__everything__echo!.description).toMatch(/echo/i)
    expect(tools['mcp__everything__get-sum']!.inputSchema.jsonSchema).toMatchObject({
      type: 'object',
      properties: { a: expect.any(Object), b: expect.any(Object) },
    })
    const r = await s.call('mcp__everything__echo', { message: 'hello from ralph' }, { signal: live() })
    expect(r).toEqual({ ok: true, output: expect.stringContaining('hello from ralph') })
    const sum = await s.call('mcp__everything__get-sum', { a: 2, b: 40 }, { signal: live() })
    expect(sum.output).toContain('42')
  }, 60_000)

  it('gives the server an allowlisted environment: no API keys', async () => {
    writeMcpJson(project, { everything: everythingServer })
    const s = await start({ ...process.env, OPENAI_API_KEY: 'sk-should-not-leak-1234' })
    const r = await s.call('mcp__everything__get-env', {}, { signal: live() })
    expect(r.ok).toBe(true)
    expect(r.output).toContain('PATH')
    expect(r.output).not.toContain('sk-should-not-leak-1234')
  }, 60_000)

  it('offers only read-only tools (readOnlyHint) in Ask mode and refuses the others', async () => {
    writeMcpJson(project, { everything: everythingServer })
    const s = await start()
    const readOnly = Object.keys(s.modelTools(true))
    expect(readOnly).toContain('mcp__everything__echo')
    expect(readOnly).not.toContain('mcp__everything__toggle-simulated-logging')
    const r = await s.call(
      'mcp__everything__toggle-simulated-logging',
      {},
      { signal: live(), readOnlyOnly: true },
    )
    expect(r.ok).toBe(false)
    expect(r.output).toMatch(/readOnlyHint/)
  }, 60_000)

  it('cancels a long call when the task is stopped', async () => {
    writeMcpJson(project, { everything: everythingServer })
    const s = await start()
    const stop = new AbortController()
    const call = s.call(
      'mcp__everything__trigger-long-running-operation',
      { duration: 30, steps: 3 },
      { signal: stop.signal },
    )
    setTimeout(() => stop.abort(), 300)
    const started = Date.now()
    const r = await call
    expect(r).toEqual({ ok: false, output: expect.stringMatching(/cancelled/) })
    expect(Date.now() - started).toBeLessThan(5000)
  }, 60_000)

  it('a server that cannot start is a failed start with the reason, not a throw; the others still work', async () => {
    writeScript(
      project,
      'tools/bad-server.js',
      'process.stderr.write("cannot start: missing config\\n"); process.exit(3)\n',
    )
    writeMcpJson(project, {
      broken: { command: 'node', args: ['tools/bad-server.js'] },
      everything: everythingServer,
    })
    const s = await start()
    const broken = s.starts.find((x) => x.server === 'broken')!
    expect(broken.ok).toBe(false)
    expect(broken.message).toMatch(/exit code 3/)
    expect(broken.message).toMatch(/cannot start: missing config/)
    expect(s.starts.find((x) => x.server === 'everything')!.ok).toBe(true)
  }, 60_000)

  it('a server that dies mid-task answers its call with an error result', async () => {
    writeScript(project, 'tools/dying.js', DYING_SERVER)
    writeMcpJson(project, { dying: { command: 'node', args: ['tools/dying.js'] } })
    const s = await start()
    expect(s.toolNames).toEqual(['mcp__dying__crash'])
    const r = await s.call('mcp__dying__crash', {}, { signal: live() })
    expect(r.ok).toBe(false)
    expect(r.output).toMatch(/"dying" is no longer running \(it ended with exit code 7; .*dying on purpose/)
    const again = await s.call('mcp__dying__crash', {}, { signal: live() })
    expect(again.ok).toBe(false)
  }, 60_000)

  it('bounds the set-up time of a server that never answers', async () => {
    writeScript(project, 'tools/silent.js', 'setInterval(() => {}, 1000)\n')
    writeMcpJson(project, { silent: { command: 'node', args: ['tools/silent.js'] } })
    const started = Date.now()
    const s = await start(process.env, 1500)
    expect(s.starts[0]).toMatchObject({ ok: false, message: expect.stringMatching(/did not answer within/) })
    expect(Date.now() - started).toBeLessThan(8000)
  }, 60_000)

  it('server-filesystem rooted at the project lists its files but cannot read the app data folder', async () => {
    // Not under /tmp: the sandbox has a fresh /tmp, which would hide the folder whatever the rules say.
    const appData = realpathSync(mkdtempSync('/var/tmp/ralph-mcp-appdata-'))
    try {
      writeFileSync(join(appData, 'secrets.json'), '{"apiKey:openai":"sk-app-data-secret"}')
      mkdirSync(join(project, 'src'))
      writeFileSync(join(project, 'src', 'hello.txt'), 'hi')
      writeMcpJson(project, { fs: { command: 'node', args: [FILESYSTEM, project, appData] } })
      const s = await start({ ...process.env, RALPH_HOME: appData })
      expect(s.starts[0]).toMatchObject({ ok: true })
      const listed = await s.call(
        'mcp__fs__list_directory',
        { path: join(project, 'src') },
        { signal: live() },
      )
      expect(listed).toEqual({ ok: true, output: expect.stringContaining('hello.txt') })
      const secret = await s.call(
        'mcp__fs__read_text_file',
        { path: join(appData, 'secrets.json') },
        { signal: live() },
      )
      expect(secret.output).not.toContain('sk-app-data-secret')
      expect(secret.ok).toBe(false)
      // The same read works for a server run outside the sandbox: the folder is hidden, not merely missing.
      expect(readFileSync(join(appData, 'secrets.json'), 'utf8')).toContain('sk-app-data-secret')
    } finally {
      removeDir(appData)
    }
  }, 60_000)

  it('stops every server it started when closed: no process is left', async () => {
    const marker = `ralph-mcp-test-${process.pid}-${Date.now()}`
    writeMcpJson(project, { everything: { command: 'node', args: [EVERYTHING, 'stdio', marker] } })
    const s = await start()
    expect(s.starts[0]).toMatchObject({ ok: true })
    expect(await processesWithArg(marker)).not.toEqual([])
    await s.close()
    expect(await waitFor(async () => (await processesWithArg(marker)).length === 0)).toBe(true)
  }, 60_000)

  it('reaches a remote server over http directly', async () => {
    const port = await freePort()
    const server = spawn(process.execPath, [EVERYTHING, 'streamableHttp'], {
      env: { ...process.env, PORT: String(port) },
      stdio: ['ignore', 'ignore', 'pipe'],
    })
    try {
      await new Promise<void>((resolve) =>
        server.stderr.on('data', (c: Buffer) => /listening/.test(String(c)) && resolve()),
      )
      writeMcpJson(project, { remote: { type: 'http', url: `http://127.0.0.1:${port}/mcp` } })
      const s = await start()
      expect(s.starts).toEqual([{ server: 'remote', ok: true, tools: expect.any(Number), message: '' }])
      const r = await s.call('mcp__remote__echo', { message: 'over http' }, { signal: live() })
      expect(r).toEqual({ ok: true, output: expect.stringContaining('over http') })
    } finally {
      server.kill()
    }
  }, 60_000)

  it('a remote server that is not there is a failed start with the reason', async () => {
    const port = await freePort()
    writeMcpJson(project, { gone: { type: 'http', url: `http://127.0.0.1:${port}/mcp` } })
    const s = await start(process.env, 5000)
    expect(s.starts[0]).toMatchObject({ server: 'gone', ok: false, message: expect.any(String) })
    expect(s.starts[0]!.message).not.toBe('')
  }, 60_000)
})
