// Ralph's tools served over MCP to an engine session (issue 28): a real project with Ralph initialised and a real
// snapshot store, the server in this process, and the MCP SDK's own client starting the relay exactly as an engine
// does (`launch.command launch.args`) — directly, and inside the product's bubblewrap sandbox where `.ralph/` is
// read-only and the snapshot store is invisible.
import { spawnSync } from 'node:child_process'
import { copyFileSync, existsSync, mkdtempSync, readFileSync, realpathSync } from 'node:fs'
import { join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  ENGINE_SNAPSHOT_ACTIONS,
  RALPH_TOOL_NAMES,
  startRalphToolsServer,
  type RalphToolsServer,
} from '../../../src/main/engines'
import { prepareSandbox, sandboxSupport } from '../../../src/main/sandbox'
import { modelTools, type ToolContext } from '../../../src/main/tools'
import { makeContext, put, removeDir, tempDir } from '../../../src/main/tools/testkit'
import { initRalphDir } from '../../../src/main/workspace/initRalphDir'
import { memoryLogger } from '../../../src/main/workspace/logFile'
import { asSchema } from 'ai'

const examples = join(import.meta.dirname, '../../../resources/plan/examples')
const PLAN = readFileSync(join(examples, 'landing-after-task-3.tsx'), 'utf8')
const FILES = [
  'src/data/flavors.ts',
  'src/components/FlavorGrid.tsx',
  'src/components/Hero.tsx',
  'src/pages/Store.tsx',
]

let root: string
let dir: string
let ctx: ToolContext
let server: RalphToolsServer | null
const clients: Client[] = []

type TextResult = { content: { type: string; text: string }[]; isError?: boolean }
const textOf = (r: unknown) => (r as TextResult).content.map((c) => c.text).join('')

async function connect(
  command: string,
  args: string[],
  env: Record<string, string>,
  cwd?: string,
): Promise<{ client: Client; stderr: () => string }> {
  const transport = new StdioClientTransport({ command, args, env, cwd, stderr: 'pipe' })
  let stderr = ''
  transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()))
  const client = new Client({ name: 'engine-under-test', version: '1.0.0' })
  clients.push(client)
  await client.connect(transport)
  return { client, stderr: () => stderr }
}

/** The client an engine is: it starts exactly the launch the server hands out. */
const engineClient = (s: RalphToolsServer) =>
  connect(s.launch.command, s.launch.args, { ...s.launch.env, PATH: process.env.PATH ?? '' })

const call = (client: Client, name: string, args: Record<string, unknown>) =>
  client.callTool({ name, arguments: args }) as Promise<TextResult>

beforeEach(async () => {
  root = tempDir('ralph-rtools-')
  await initRalphDir(root, { openedFrom: 'ralph tools test' })
  for (const file of FILES) put(root, file, `export const x = '${file}'\n`)
  put(root, '.ralph/plan.tsx', PLAN)
  put(root, '.ralph/task-counter.txt', '3')
  put(root, '.ralph/status.txt', 'running')
  put(root, '.ralph/phase.txt', 'build')
  ctx = makeContext(root, { taskNumber: 3 })
  await ctx.snapshots.save({ kind: 'task-pre', task: 3 })
  // Short, like the runner's session home: socket paths are limited to about 107 bytes.
  dir = realpathSync(mkdtempSync('/tmp/rt-'))
  server = null
})

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()))
  await server?.close()
  removeDir(dir)
  removeDir(root)
})

describe("Ralph's tools over MCP", () => {
  it('lists the four tools with the built-in descriptions and schemas, snapshot narrowed to what only reads', async () => {
    server = await startRalphToolsServer({ dir, toolCtx: ctx, logger: memoryLogger() })
    expect(server.launch).toEqual({
      command: process.execPath,
      args: [join(dir, 'rt-relay.cjs'), join(dir, 'rt.sock')],
      env: {},
    })
    const { client } = await engineClient(server)
    expect(client.getServerVersion()?.name).toBe('ralph')
    const { tools } = await client.listTools()
    expect(tools.map((t) => t.name)).toEqual([...RALPH_TOOL_NAMES])
    for (const name of ['plan', 'queue', 'mark_complete'] as const) {
      const t = tools.find((x) => x.name === name)!
      expect(t.description).toBe(modelTools[name]!.description)
      const { $schema: _draft, ...builtIn } = (await asSchema(modelTools[name]!.inputSchema)
        .jsonSchema) as Record<string, unknown>
      expect(t.inputSchema).toEqual(builtIn)
    }
    expect(tools.map((t) => [t.name, t.annotations?.readOnlyHint, t.annotations?.destructiveHint])).toEqual([
      ['snapshot', true, false],
      ['plan', true, false],
      ['queue', false, false],
      ['mark_complete', false, false],
    ])
    const snapshot = tools.find((t) => t.name === 'snapshot')!
    const action = snapshot.inputSchema.properties!.action as { enum: string[]; description: string }
    expect(action.enum).toEqual([...ENGINE_SNAPSHOT_ACTIONS])
    expect(action.description).toMatch(/^list: .* diff: .* status: /)
    expect(JSON.stringify(snapshot.inputSchema)).not.toMatch(/save|rollback/)
    expect(Object.keys(snapshot.inputSchema.properties!)).toEqual(['action', 'target'])
    expect(snapshot.description).not.toMatch(/roll the project back/)
  })

  it('runs plan, snapshot and mark_complete as the built-in loop does, and refuses save and rollback', async () => {
    server = await startRalphToolsServer({ dir, toolCtx: ctx, logger: memoryLogger() })
    const { client } = await engineClient(server)

    const validate = await call(client, 'plan', { action: 'validate' })
    expect(validate.isError).toBe(false)
    expect(textOf(validate)).toMatch(/Plan valid/)

    const list = await call(client, 'snapshot', { action: 'list' })
    expect(list.isError).toBe(false)
    expect(textOf(list)).toMatch(/1 snapshot \(newest first/)
    expect(textOf(list)).toContain('task-3-pre')

    put(root, 'src/data/flavors.ts', 'export const flavors = ["Dusk"]\n')
    const status = await call(client, 'snapshot', { action: 'status' })
    expect(textOf(status)).toMatch(/Current position: task-3-pre/)
    expect(textOf(status)).toContain('Changes since then: 0 added, 1 modified, 0 deleted.')
    expect(textOf(await call(client, 'snapshot', { action: 'diff' }))).toContain('M src/data/flavors.ts')

    for (const action of ['save', 'rollback']) {
      const refused = await call(client, 'snapshot', { action, target: 'task-3-pre', message: 'mine' })
      expect(refused.isError).toBe(true)
      expect(textOf(refused)).toMatch(
        new RegExp(`^snapshot has no action "${action}" here: the actions are list, diff and status\\.`),
      )
    }
    // Nothing was saved or rolled back.
    expect((await ctx.snapshots.list({ limit: 20 })).total).toBe(1)
    expect(readFileSync(join(root, 'src/data/flavors.ts'), 'utf8')).toContain('Dusk')

    const other = await call(client, 'write_file', { path: 'x.txt', content: 'x' })
    expect(other.isError).toBe(true)
    expect(textOf(other)).toBe(
      'There is no tool "write_file" on this server. Its tools are: snapshot, plan, queue, mark_complete.',
    )
    expect(existsSync(join(root, 'x.txt'))).toBe(false)
    const bad = await call(client, 'plan', { action: 'explode' })
    expect(bad.isError).toBe(true)
    expect(textOf(bad)).toMatch(/^Invalid arguments for plan:/)

    expect(server.completed).toBe(false)
    const done = await call(client, 'mark_complete', {
      summary: 'Added the notes list.',
      evidence: 'npm test',
    })
    expect(done.isError).toBe(false)
    expect(textOf(done)).toMatch(/set \.ralph\/status\.txt to complete/)
    expect(readFileSync(join(root, '.ralph/status.txt'), 'utf8')).toBe('complete')
    expect(readFileSync(join(root, '.ralph/summary.md'), 'utf8')).toContain('Added the notes list.')
    expect(server.completed).toBe(true)
    expect(server.calls.map((c) => [c.name, c.ok, c.completed])).toEqual([
      ['plan', true, false],
      ['snapshot', true, false],
      ['snapshot', true, false],
      ['snapshot', true, false],
      ['snapshot', false, false],
      ['snapshot', false, false],
      ['write_file', false, false],
      ['plan', false, false],
      ['mark_complete', true, true],
    ])
    expect(server.calls[0]!.args).toEqual({ action: 'validate' })
  })

  it('serves a second connection at the same time, and the queue tool', async () => {
    server = await startRalphToolsServer({ dir, toolCtx: ctx, logger: memoryLogger() })
    const [a, b] = await Promise.all([engineClient(server), engineClient(server)])
    const [next, list] = await Promise.all([
      call(a.client, 'queue', { action: 'next' }),
      call(b.client, 'queue', { action: 'list' }),
    ])
    expect(next.isError).toBe(false)
    expect(list.isError).toBe(false)
    const verdict = await call(b.client, 'queue', { action: 'accept' })
    expect(verdict.isError).toBe(true)
    expect(textOf(verdict)).toMatch(/^queue cannot "accept"/)
    expect(server.calls.map((c) => c.name)).toEqual(['queue', 'queue', 'queue'])
  })

  it('close() ends live connections, removes its files, and can be called again', async () => {
    const log = memoryLogger()
    server = await startRalphToolsServer({ dir, toolCtx: ctx, logger: log })
    const { client } = await engineClient(server)
    let closed = false
    client.onclose = () => (closed = true)
    await server.close()
    await server.close()
    expect(existsSync(join(dir, 'rt.sock'))).toBe(false)
    expect(existsSync(join(dir, 'rt-relay.cjs'))).toBe(false)
    await expect.poll(() => closed).toBe(true)
  })

  it('says clearly when the relay cannot reach Ralph', async () => {
    server = await startRalphToolsServer({ dir, toolCtx: ctx, logger: memoryLogger() })
    const relay = join(dir, 'kept-relay.cjs')
    copyFileSync(server.launch.args[0]!, relay)
    await server.close()
    const r = spawnSync(process.execPath, [relay, join(dir, 'rt.sock')], { encoding: 'utf8' })
    expect(r.status).toBe(1)
    expect(r.stderr).toMatch(/^ralph tools relay: cannot reach Ralph at .*rt\.sock: connect ENOENT/)
  })

  it('refuses a socket path longer than the platform allows, with the reason', async () => {
    const deep = join(dir, 'x'.repeat(100))
    await expect(startRalphToolsServer({ dir: deep, toolCtx: ctx, logger: memoryLogger() })).rejects.toThrow(
      /a Unix socket path may be at most 107 bytes here and this one is \d+\. Use a shorter session folder/,
    )
  })
})

describe("Ralph's tools from inside the sandbox", () => {
  it('serves a relay started in bubblewrap while .ralph/snapshots.git is invisible there', async () => {
    expect((await sandboxSupport()).kind).toBe('bubblewrap')
    server = await startRalphToolsServer({ dir, toolCtx: ctx, logger: memoryLogger() })
    const sandbox = await prepareSandbox({
      projectDir: root,
      env: process.env,
      writableRalphFiles: [],
      home: dir,
      logger: memoryLogger(),
    })
    if (!sandbox.ok) throw new Error(sandbox.message)
    expect(sandbox.home).toBe(dir)
    const env = { PATH: process.env.PATH ?? '', HOME: dir, ...server.launch.env }
    const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`

    // What the engine itself sees in there: no snapshot store, a read-only .ralph/.
    const store = join(root, '.ralph/snapshots.git')
    expect(existsSync(join(store, 'HEAD'))).toBe(true)
    const look = sandbox.wrap(
      `ls -A ${quote(store)} | wc -l; test -e ${quote(join(store, 'HEAD'))} && echo seen || echo hidden; ` +
        `echo x > ${quote(join(root, '.ralph/status.txt'))} 2>/dev/null && echo writable || echo read-only`,
      env,
    )
    const seen = spawnSync(look.file, look.args, { env: look.env, encoding: 'utf8' })
    expect(seen.stdout.split('\n').slice(0, 3)).toEqual(['0', 'hidden', 'read-only'])

    const line = `exec ${[server.launch.command, ...server.launch.args].map(quote).join(' ')}`
    const launch = sandbox.wrap(line, env)
    const { client } = await connect(launch.file, launch.args, launch.env as Record<string, string>, root)
    const list = await call(client, 'snapshot', { action: 'list' })
    expect(list.isError).toBe(false)
    expect(textOf(list)).toContain('task-3-pre')
    const done = await call(client, 'mark_complete', { summary: 'Done from inside the sandbox.' })
    expect(done.isError).toBe(false)
    expect(readFileSync(join(root, '.ralph/status.txt'), 'utf8')).toBe('complete')
    expect(server.completed).toBe(true)
  })
})
