// Issue 34: a call that never answers must end at its time limit. On Node 20 an `AbortSignal.timeout` held only by
// `AbortSignal.any` is garbage-collected and never fires; here the collector runs every 10 ms while an MCP tool
// (a real stdio server in the real sandbox) never answers, and the call still ends at its limit.
import v8 from 'node:v8'
import vm from 'node:vm'
import { afterEach, beforeEach, expect, it } from 'vitest'
import { McpSession, readProjectServers } from '../../../src/main/mcp'
import { scratchHome } from '../../../src/main/sandbox/home'
import { removeDir, tempDir } from '../../../src/main/tools/testkit'
import { initRalphDir } from '../../../src/main/workspace/initRalphDir'
import { memoryLogger } from '../../../src/main/workspace/logFile'
import { writeMcpJson, writeScript } from '../mcp/fixtures'

/** A stdio MCP server whose one tool, `wait`, never answers. */
const SILENT_SERVER = `
const rl = require('node:readline').createInterface({ input: process.stdin })
const send = (m) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', ...m }) + '\\n')
rl.on('line', (line) => {
  const m = JSON.parse(line)
  if (m.method === 'initialize')
    send({ id: m.id, result: { protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'silent', version: '1' } } })
  else if (m.method === 'tools/list')
    send({ id: m.id, result: { tools: [{ name: 'wait', description: 'Never answers.', inputSchema: { type: 'object', properties: {} } }] } })
})
`

let project: string
let session: McpSession | null = null
beforeEach(async () => {
  project = tempDir('ralph-mcp-gc-')
  await initRalphDir(project, { openedFrom: 'mcp timeout test' })
})
afterEach(async () => {
  await session?.close()
  session = null
  removeDir(await scratchHome(project))
  removeDir(project)
})

it('an MCP tool that never answers ends at the call’s time limit although the collector runs meanwhile', async () => {
  v8.setFlagsFromString('--expose_gc')
  const gc = vm.runInNewContext('gc') as () => void
  const script = writeScript(project, 'silent.js', SILENT_SERVER)
  writeMcpJson(project, { silent: { command: 'node', args: [script] } })
  const { servers } = await readProjectServers(project)
  session = await McpSession.start(servers, { projectDir: project, env: process.env, logger: memoryLogger() })
  expect(session.toolNames).toContain('mcp__silent__wait')
  const collect = setInterval(gc, 10)
  try {
    const started = Date.now()
    const r = await Promise.race([
      session.call('mcp__silent__wait', {}, { signal: new AbortController().signal, timeoutMs: 500 }),
      new Promise<null>((resolve) => setTimeout(() => resolve(null), 8000)),
    ])
    expect(r, 'the call never ended').not.toBeNull()
    expect(r).toEqual({ ok: false, output: 'The MCP server "silent" did not answer within 1 s.' })
    expect(Date.now() - started).toBeLessThan(5000)
  } finally {
    clearInterval(collect)
  }
}, 60_000)
