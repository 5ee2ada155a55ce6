// The real Codex CLI as the client of Ralph's tools: it starts the relay from its config.toml's `mcp_servers.ralph`,
// offers the tools to the model (as the `mcp__ralph` namespace) and runs the calls the Responses wire fake scripts.
import { spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs'
import { createServer, request, type Server } from 'node:http'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { startRalphToolsServer, type RalphToolsServer } from '../../../src/main/engines'
import { makeContext, put, removeDir, tempDir } from '../../../src/main/tools/testkit'
import { initRalphDir } from '../../../src/main/workspace/initRalphDir'
import { memoryLogger } from '../../../src/main/workspace/logFile'
import { startResponsesServer, type ResponsesServer } from '../../fixtures/wire/responsesServer'

const CODEX = join(import.meta.dirname, '../../../node_modules/.bin/codex')

type Namespace = {
  type: string
  name: string
  tools: { name: string; parameters: Record<string, unknown> }[]
}
type CodexEvent = {
  type: string
  item?: { type: string; tool?: string; status?: string; result?: { content: { text: string }[] } | null }
}

let root: string
let dir: string
let model: ResponsesServer
let proxy: Server | null = null
let server: RalphToolsServer | null = null

/**
 * Codex offers an MCP server's tools as a Responses `namespace` and expects the model's call to name it
 * (`"name": "mark_complete", "namespace": "mcp__ralph"`); the wire fake scripts plain function calls, so this proxy
 * in front of it rewrites a scripted `mcp__ralph__<tool>` into that shape.
 */
async function namespacingProxy(upstream: string): Promise<string> {
  proxy = createServer((req, res) => {
    const sent: Buffer[] = []
    req.on('data', (c: Buffer) => sent.push(c))
    req.on('end', () => {
      const up = request(upstream + req.url, { method: req.method, headers: req.headers }, (upRes) => {
        const got: Buffer[] = []
        upRes.on('data', (c: Buffer) => got.push(c))
        upRes.on('end', () => {
          const body = Buffer.concat(got)
            .toString()
            .replace(/"name":"mcp__ralph__(\w+)"/g, '"name":"$1","namespace":"mcp__ralph"')
          const headers = { ...upRes.headers }
          delete headers['content-length']
          res.writeHead(upRes.statusCode ?? 502, headers)
          res.end(body)
        })
      })
      up.end(Buffer.concat(sent))
    })
  })
  await new Promise<void>((resolve) => proxy!.listen(0, '127.0.0.1', resolve))
  return `http://127.0.0.1:${(proxy.address() as { port: number }).port}`
}

beforeEach(async () => {
  root = tempDir('ralph-rtools-cx-')
  await initRalphDir(root, { openedFrom: 'ralph tools codex test' })
  put(root, '.ralph/status.txt', 'running')
  dir = realpathSync(mkdtempSync('/tmp/rt-'))
  model = await startResponsesServer()
})

afterEach(async () => {
  await server?.close()
  await new Promise((resolve) => (proxy ? proxy.close(resolve) : resolve(undefined)))
  proxy = null
  await model.close()
  removeDir(dir)
  removeDir(root)
})

describe("Ralph's tools with the real Codex", () => {
  it('Codex starts the relay from its config, lists the tools and calls them', async () => {
    server = await startRalphToolsServer({ dir, toolCtx: makeContext(root), logger: memoryLogger() })
    const codexHome = join(dir, '.codex')
    mkdirSync(codexHome)
    const q = (s: string) => JSON.stringify(s)
    writeFileSync(
      join(codexHome, 'config.toml'),
      [
        'model = "gpt-5"',
        'model_provider = "fake"',
        '[model_providers.fake]',
        'name = "fake"',
        `base_url = ${q(`${await namespacingProxy(model.url)}/v1`)}`,
        'wire_api = "responses"',
        'env_key = "FAKE_KEY"',
        '[mcp_servers.ralph]',
        `command = ${q(server.launch.command)}`,
        `args = [${server.launch.args.map(q).join(', ')}]`,
        // Without it `codex exec` (approval policy never) refuses every MCP call as needing approval.
        'default_tools_approval_mode = "approve"',
      ].join('\n'),
    )
    let offered: Namespace | null = null
    model.fallback = {
      kind: 'computed',
      reply: (req) => {
        const tools = ((req.body as { tools?: Namespace[] }).tools ?? []).filter(
          (t) => t.name === 'mcp__ralph',
        )
        if (offered !== null || tools.length === 0) return { kind: 'text', text: 'Finished.' }
        offered = tools[0]!
        return {
          kind: 'tools',
          calls: [
            { name: 'mcp__ralph__snapshot', arguments: { action: 'rollback', target: 'task-1-pre' } },
            { name: 'mcp__ralph__mark_complete', arguments: { summary: 'Done through Codex.' } },
          ],
        }
      },
    }
    const child = spawn(CODEX, ['exec', '--json', '--skip-git-repo-check', 'Mark the task complete.'], {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', HOME: dir, CODEX_HOME: codexHome, FAKE_KEY: 'test-key' },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let out = ''
    let err = ''
    child.stdout.on('data', (d: Buffer) => (out += d.toString()))
    child.stderr.on('data', (d: Buffer) => (err += d.toString()))
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve))
    expect(code, err).toBe(0)

    expect(offered!.tools.map((t) => t.name).sort()).toEqual(['mark_complete', 'plan', 'queue', 'snapshot'])
    const snapshot = offered!.tools.find((t) => t.name === 'snapshot')!
    expect((snapshot.parameters.properties as { action: { enum: string[] } }).action.enum).toEqual([
      'list',
      'diff',
      'status',
    ])
    expect(server.calls.map((c) => [c.name, c.ok])).toEqual([
      ['snapshot', false],
      ['mark_complete', true],
    ])
    const calls = out
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as CodexEvent)
      .filter((e) => e.type === 'item.completed' && e.item?.type === 'mcp_tool_call')
    expect(calls.map((e) => [e.item!.tool, e.item!.status])).toEqual([
      // A tool's error result (isError) is a failed call to Codex, with Ralph's reason as its result.
      ['snapshot', 'failed'],
      ['mark_complete', 'completed'],
    ])
    expect(calls[0]!.item!.result!.content[0]!.text).toMatch(
      /^snapshot has no action "rollback" here: the actions are list, diff and status\./,
    )
    expect(server.completed).toBe(true)
    expect(readFileSync(join(root, '.ralph/status.txt'), 'utf8')).toBe('complete')
  }, 120_000)
})
