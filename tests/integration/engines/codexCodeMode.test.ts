// Codex's newest models (codex-cli 0.169.0's catalog: gpt-5.6-*, gpt-6-*, gpt-6.1-* — `tool_mode: code_mode_only`,
// `use_responses_lite`) declare their tools in an `additional_tools` input item, in namespaces, and act through one
// code-mode `exec` tool: a JavaScript script whose `tools.exec_command(…)`, `tools.apply_patch(…)` and
// `tools.mcp__<server>__<tool>(…)` calls Codex runs. A REAL `codex exec` session on such a model against the
// Responses wire fake (which sends the scripted `exec` call as the namespaced custom tool call the service sends):
// each nested call reaches `exec --json` as the same items as on the older models, so the adapter's parser — and the
// task card, which shows its events — read it unchanged.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { EngineEvent, EngineToolCall } from '../../../src/main/engines'
import { startResponsesServer, type ResponsesServer } from '../../fixtures/wire/responsesServer'
import { makeTempDir } from '../../helpers/tempDir'
import { MCP_SERVER, runCodexSession, TSX_BIN, userConfig } from '../../fixtures/engines/codexSession'

const SESSION_MS = 120_000
const KEY = 'sk-ralph-test'
/** The model codex-cli 0.169.0 picks for an API-key user, a code-mode model. */
const MODEL = 'gpt-6.1-sol'

type Json = Record<string, unknown>
const tools = (events: EngineEvent[]): EngineToolCall[] =>
  events.flatMap((e) => (e.type === 'tool' ? [e.call] : []))

describe(`Codex on a code-mode model (${MODEL})`, () => {
  let server: ResponsesServer
  let project: ReturnType<typeof makeTempDir>
  let home: ReturnType<typeof makeTempDir>
  beforeEach(async () => {
    server = await startResponsesServer({ apiKey: KEY })
    server.fallback = { kind: 'text', text: 'Nothing more to do.' }
    project = makeTempDir('ralph-codex-project-')
    home = makeTempDir('ralph-codex-home-')
  })
  afterEach(async () => {
    await server.close()
    project.cleanup()
    home.cleanup()
  })

  it(
    "reads a session whose one `exec` script runs a command, a patch and Ralph's tool",
    async () => {
      const mcpLog = join(home.path, 'mcp-calls.jsonl')
      const script = [
        "const out = await tools.exec_command({ cmd: 'echo hi > hello.txt && echo wrote' });",
        'text(out);',
        "await tools.exec_command({ cmd: 'exit 3' });",
        "await tools.apply_patch('*** Begin Patch\\n*** Add File: src/notes.txt\\n+hello\\n*** End Patch\\n');",
        "text(await tools.mcp__ralph__mark_complete({ summary: 'Done in code mode.' }));",
      ].join('\n')
      server.enqueue(
        { kind: 'tools', calls: [{ name: 'exec', arguments: { input: script } }] },
        { kind: 'text', text: 'Wrote hello.txt and src/notes.txt.' },
      )
      const run = await runCodexSession({
        spec: {
          projectDir: project.path,
          system: 'You are Ralph, iteration 1.',
          prompt: 'Write hello.txt and src/notes.txt.',
          model: null,
          ralphTools: { command: TSX_BIN, args: [MCP_SERVER], env: { RALPH_TEST_MCP_LOG: mcpLog } },
          images: [],
          sessionHome: home.path,
        },
        config: userConfig(server, MODEL),
        key: KEY,
      })
      expect(run.code, run.stderr).toBe(0)

      // The newer shape really was used: no top-level tools, an `additional_tools` item whose `functions` namespace
      // holds the custom `exec` tool; the script's result went back as that call's output.
      const [first, second] = server.requests.map((r) => r.body as Json)
      expect(first!.model).toBe(MODEL)
      expect(first!.tools ?? []).toEqual([])
      const declared = (first!.input as Json[]).find((i) => i.type === 'additional_tools')
      const functions = (declared?.tools as Json[] | undefined)?.find((t) => t.name === 'functions')
      expect(functions).toMatchObject({ type: 'namespace' })
      expect(functions!.tools).toContainEqual(expect.objectContaining({ type: 'custom', name: 'exec' }))
      const input = second!.input as Json[]
      expect(input).toContainEqual(
        expect.objectContaining({ type: 'custom_tool_call', name: 'exec', namespace: 'functions' }),
      )
      expect(JSON.stringify(input.find((i) => i.type === 'custom_tool_call_output'))).toContain(
        'Task marked complete.',
      )

      // What it did, as the card shows it: each nested call under Ralph's names, in order.
      expect(readFileSync(join(project.path, 'hello.txt'), 'utf8')).toBe('hi\n')
      expect(readFileSync(join(project.path, 'src/notes.txt'), 'utf8')).toBe('hello\n')
      expect(readFileSync(mcpLog, 'utf8')).toContain('Done in code mode.')
      expect(tools(run.events)).toEqual([
        {
          id: expect.any(String),
          name: 'run_command',
          args: { command: 'echo hi > hello.txt && echo wrote' },
          ok: true,
          output: 'wrote\nExit code: 0',
          changedFiles: [],
          ranCommand: true,
        },
        {
          id: expect.any(String),
          name: 'run_command',
          args: { command: 'exit 3' },
          ok: false,
          output: 'Exit code: 3',
          changedFiles: [],
          ranCommand: true,
        },
        {
          id: expect.any(String),
          name: 'apply_patch',
          args: { changes: [{ path: 'src/notes.txt', kind: 'add' }] },
          ok: true,
          output: 'A src/notes.txt',
          changedFiles: ['src/notes.txt'],
          ranCommand: false,
        },
        {
          id: expect.any(String),
          name: 'mark_complete',
          args: { summary: 'Done in code mode.' },
          ok: true,
          output: 'Task marked complete.',
          changedFiles: [],
          ranCommand: false,
        },
      ])
      // The usage is the turn's, summed over its requests as the service billed them.
      const bills = server.bills()
      expect(run.events.find((e) => e.type === 'usage')).toEqual({
        type: 'usage',
        model: null,
        inputTokens: bills.reduce((s, b) => s + b.uncachedInput + b.cacheRead, 0),
        outputTokens: bills.reduce((s, b) => s + b.output, 0),
        cacheReadTokens: bills.reduce((s, b) => s + b.cacheRead, 0),
        cacheWriteTokens: 0,
        reasoningTokens: 0,
        costUsd: null,
      })
      expect(run.events.at(-1)).toEqual({ type: 'done', text: 'Wrote hello.txt and src/notes.txt.' })
    },
    SESSION_MS,
  )
})
