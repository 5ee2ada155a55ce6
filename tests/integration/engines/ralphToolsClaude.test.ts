// The real Claude Code CLI as the client of Ralph's tools: it starts the relay from its MCP configuration, lists the
// tools and calls mark_complete (scripted through the Anthropic wire fake), exactly as in an engine session.
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { startRalphToolsServer, type RalphToolsServer } from '../../../src/main/engines'
import { makeContext, put, removeDir, tempDir } from '../../../src/main/tools/testkit'
import { initRalphDir } from '../../../src/main/workspace/initRalphDir'
import { memoryLogger } from '../../../src/main/workspace/logFile'
import { startAnthropicServer, type AnthropicServer } from '../../fixtures/wire/anthropicServer'

type Tool = { name: string; input_schema: Record<string, unknown> }
type ToolResultBlock = {
  type: string
  is_error?: boolean
  content: string | { type: string; text: string }[]
}
const textOf = (r: ToolResultBlock) =>
  typeof r.content === 'string' ? r.content : r.content.map((c) => c.text).join('')

const CLAUDE = join(import.meta.dirname, '../../../node_modules/.bin/claude')

let root: string
let dir: string
let model: AnthropicServer
let server: RalphToolsServer | null = null

beforeEach(async () => {
  root = tempDir('ralph-rtools-cc-')
  await initRalphDir(root, { openedFrom: 'ralph tools claude test' })
  put(root, '.ralph/status.txt', 'running')
  dir = realpathSync(mkdtempSync('/tmp/rt-'))
  model = await startAnthropicServer()
})

afterEach(async () => {
  await server?.close()
  await model.close()
  removeDir(dir)
  removeDir(root)
})

describe("Ralph's tools with the real Claude Code", () => {
  it('Claude Code starts the relay from its MCP config and calls mark_complete', async () => {
    const ctx = makeContext(root, { taskNumber: 1 })
    server = await startRalphToolsServer({ dir, toolCtx: ctx, logger: memoryLogger() })
    const mcpConfig = join(dir, 'mcp.json')
    writeFileSync(mcpConfig, JSON.stringify({ mcpServers: { ralph: { type: 'stdio', ...server.launch } } }))
    // The model's side: the first request that offers Ralph's tools gets a turn calling two of them.
    let offered: Tool[] | null = null
    model.fallback = {
      kind: 'computed',
      reply: (req) => {
        const tools = (req.body as { tools?: Tool[] }).tools ?? []
        if (offered !== null || !tools.some((t) => t.name === 'mcp__ralph__mark_complete')) {
          return { kind: 'text', text: 'Finished.' }
        }
        offered = tools
        return {
          kind: 'tools',
          calls: [
            { name: 'mcp__ralph__snapshot', arguments: { action: 'save' } },
            { name: 'mcp__ralph__mark_complete', arguments: { summary: 'Done through Claude Code.' } },
          ],
        }
      },
    }
    const child = spawn(
      CLAUDE,
      [
        '-p',
        'Mark the task complete.',
        '--output-format',
        'stream-json',
        '--verbose',
        '--mcp-config',
        mcpConfig,
        '--strict-mcp-config',
        '--allowedTools',
        'mcp__ralph__snapshot,mcp__ralph__mark_complete',
        '--model',
        'claude-sonnet-4-5',
      ],
      {
        cwd: root,
        env: {
          PATH: process.env.PATH ?? '',
          HOME: dir,
          ANTHROPIC_BASE_URL: model.url,
          ANTHROPIC_API_KEY: 'test-key',
          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
          DISABLE_AUTOUPDATER: '1',
          DISABLE_TELEMETRY: '1',
          DISABLE_ERROR_REPORTING: '1',
          // MCP tools are otherwise deferred behind Claude Code's ToolSearch tool.
          ENABLE_TOOL_SEARCH: 'false',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    )
    let out = ''
    let err = ''
    child.stdout.on('data', (d: Buffer) => (out += d.toString()))
    child.stderr.on('data', (d: Buffer) => (err += d.toString()))
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve))
    expect(code, err).toBe(0)
    // Claude Code offered the model Ralph's tools with Ralph's schemas (snapshot narrowed) …
    const snapshot = offered!.find((t) => t.name === 'mcp__ralph__snapshot')!
    expect((snapshot.input_schema.properties as { action: { enum: string[] } }).action.enum).toEqual([
      'list',
      'diff',
      'status',
    ])
    // … ran both calls through the relay, and told the model the refused one failed.
    expect(server.calls.map((c) => [c.name, c.ok])).toEqual([
      ['snapshot', false],
      ['mark_complete', true],
    ])
    const results = out
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { type: string; message?: { content?: unknown } })
      .filter((e) => e.type === 'user')
      .flatMap((e) => e.message!.content as ToolResultBlock[])
      .filter((c) => c.type === 'tool_result')
    expect(results.map((r) => [r.is_error === true, textOf(r)])).toEqual([
      [
        true,
        expect.stringMatching(/^snapshot has no action "save" here: the actions are list, diff and status\./),
      ],
      [
        false,
        expect.stringMatching(/^Wrote \.ralph\/summary\.md and set \.ralph\/status\.txt to complete\./),
      ],
    ])
    expect(server.completed).toBe(true)
    expect(readFileSync(join(root, '.ralph/status.txt'), 'utf8')).toBe('complete')
  }, 120_000)
})
