// The Codex adapter's pure parts: its parser on lines the real CLI printed (tests/fixtures/engines/
// codexTranscripts.ts), its reading of Codex's usage-limit and login messages, and the launch it asks for.
import { describe, expect, it } from 'vitest'
import { codexAdapter, configuredCodexModel, failureOf, resetAtOf } from '../../../src/main/engines/codex'
import { ENGINE_CLIS, type EngineEvent, type EngineSessionSpec } from '../../../src/main/engines'
import { unwrapShell } from '../../../src/main/engines/codex/items'
import { tomlString } from '../../../src/main/engines/codex/toml'
import * as transcripts from '../../fixtures/engines/codexTranscripts'

const parse = (
  lines: string[],
  exit: { code: number | null; signal: string | null; stderr: string } = {
    code: 0,
    signal: null,
    stderr: '',
  },
) => {
  const parser = codexAdapter.createParser({ projectDir: transcripts.PROJECT })
  const fromLines = lines.flatMap((l) => parser.line(l))
  return { fromLines, atEnd: parser.end(exit) }
}

describe('Codex parser on real `exec --json` lines', () => {
  it('turns commands, patches, messages and the usage into Ralph events', () => {
    const { fromLines, atEnd } = parse(transcripts.shellAndPatch)
    expect(fromLines).toEqual<EngineEvent[]>([
      { type: 'init', model: null, sessionId: '01a21b04-ef31-7311-b14e-d232d57056b7', version: null },
      {
        type: 'tool',
        call: {
          id: 'item_0',
          name: 'run_command',
          args: { command: 'echo hi > hello.txt && echo wrote' },
          ok: true,
          output: 'wrote\nExit code: 0',
          changedFiles: [],
          ranCommand: true,
        },
      },
      {
        type: 'tool',
        call: {
          id: 'item_1',
          name: 'apply_patch',
          args: { changes: [{ path: 'src/notes.txt', kind: 'add' }] },
          ok: true,
          output: 'A src/notes.txt',
          changedFiles: ['src/notes.txt'],
          ranCommand: false,
        },
      },
      {
        type: 'tool',
        call: {
          id: 'item_2',
          name: 'apply_patch',
          args: { changes: [{ path: 'hello.txt', kind: 'update' }] },
          ok: true,
          output: 'M hello.txt',
          changedFiles: ['hello.txt'],
          ranCommand: false,
        },
      },
      { type: 'text', text: 'Wrote hello.txt and src/notes.txt.' },
      {
        type: 'usage',
        model: null,
        inputTokens: 38902,
        outputTokens: 106,
        cacheReadTokens: 28800,
        cacheWriteTokens: 0,
        reasoningTokens: 0,
        costUsd: null,
      },
      { type: 'done', text: 'Wrote hello.txt and src/notes.txt.' },
    ])
    expect(atEnd).toEqual([])
  })

  it("names Ralph's MCP tools by their own name, reports failed calls as failed, and skips Codex's warnings", () => {
    const calls = parse(transcripts.mcpAndFailedCommand).fromLines.flatMap((e) =>
      e.type === 'tool' ? [e.call] : [],
    )
    expect(calls).toEqual([
      {
        id: 'item_1',
        name: 'fail_always',
        args: {},
        ok: false,
        output: 'This tool always fails.',
        changedFiles: [],
        ranCommand: false,
      },
      {
        id: 'item_2',
        name: 'run_command',
        args: { command: 'exit 3' },
        ok: false,
        output: 'Exit code: 3',
        changedFiles: [],
        ranCommand: true,
      },
    ])
  })

  it("names another MCP server's tools mcp__<server>__<tool>, outside the snapshots", () => {
    const line = JSON.stringify({
      type: 'item.completed',
      item: {
        id: 'item_5',
        type: 'mcp_tool_call',
        server: 'github',
        tool: 'create_issue',
        arguments: { title: 'x' },
        result: { content: [{ type: 'text', text: 'Created #4.' }], structured_content: null },
        error: null,
        status: 'completed',
      },
    })
    const [event] = parse([line]).fromLines
    expect(event).toEqual({
      type: 'tool',
      call: {
        id: 'item_5',
        name: 'mcp__github__create_issue',
        args: { title: 'x' },
        ok: true,
        output: 'Created #4.',
        changedFiles: [],
        ranCommand: false,
        outsideSnapshot: true,
      },
    })
  })

  it('sets a second message off from the first and ends with the last one', () => {
    const message = (id: string, text: string) =>
      JSON.stringify({ type: 'item.completed', item: { id, type: 'agent_message', text } })
    const { fromLines } = parse([
      message('a', 'First.'),
      message('b', 'Second.'),
      transcripts.shellAndPatch.at(-1)!,
    ])
    expect(fromLines.filter((e) => e.type === 'text')).toEqual([
      { type: 'text', text: 'First.' },
      { type: 'text', text: '\n\nSecond.' },
    ])
    expect(fromLines.at(-1)).toEqual({ type: 'done', text: 'Second.' })
  })

  it('reads a refused key and a missing key as not logged in', () => {
    for (const lines of [transcripts.unauthorized, transcripts.missingKey]) {
      const { fromLines, atEnd } = parse(lines, { code: 1, signal: null, stderr: '' })
      expect(fromLines.at(-1)).toMatchObject({ type: 'failure', kind: 'not-logged-in' })
      expect(fromLines.filter((e) => e.type === 'failure')).toHaveLength(1)
      expect(atEnd).toEqual([])
    }
  })

  it('reads a usage limit with its reset time, or without one', () => {
    const later = parse(transcripts.usageLimitLaterDay).fromLines.at(-1)
    expect(later).toMatchObject({ type: 'limit', resetAt: new Date(2026, 10, 30, 3, 0).getTime() })
    expect((later as { message: string }).message).toMatch(/hit your usage limit/)
    expect(parse(transcripts.usageLimitNoTime).fromLines.at(-1)).toMatchObject({
      type: 'limit',
      resetAt: null,
    })
  })

  it('reads "try again at" a time of day as its next occurrence', () => {
    const now = new Date(2026, 10, 27, 2, 59, 30).getTime()
    const msg = 'You’ve hit your usage limit. Upgrade to Pro … or try again at 3:59 AM.'
    expect(resetAtOf(msg, now)).toBe(new Date(2026, 10, 27, 3, 59).getTime())
    expect(resetAtOf(msg.replace('3:59 AM', '12:05 AM'), now)).toBe(new Date(2026, 10, 28, 0, 5).getTime())
    expect(resetAtOf(msg.replace('3:59 AM', '1:30 PM'), now)).toBe(new Date(2026, 10, 27, 13, 30).getTime())
    // No credit, or a rate limit Codex gave up retrying: nothing to wait for (Codex's own texts).
    for (const message of [
      'Quota exceeded. Check your plan and billing details.',
      'exceeded retry limit, last status: 429 Too Many Requests',
    ])
      expect(failureOf(message)).toEqual({ type: 'failure', kind: 'provider', message })
    expect(failureOf('unexpected status 500 Internal Server Error: boom')).toMatchObject({
      type: 'failure',
      kind: 'provider',
    })
  })

  it('reports a session that ended before its turn did as a crash with the end of stderr', () => {
    const { atEnd } = parse(transcripts.reconnecting, {
      code: null,
      signal: 'SIGKILL',
      stderr: 'line one\nERROR codex_api: failed to connect\n',
    })
    expect(atEnd).toEqual([
      {
        type: 'failure',
        kind: 'crash',
        message:
          'Codex was stopped by SIGKILL before its turn finished.\nline one\nERROR codex_api: failed to connect',
      },
    ])
  })

  it('reports options this Codex does not know as a version problem', () => {
    const { atEnd } = parse([], {
      code: 2,
      signal: null,
      stderr: "error: unexpected argument '--ephemeral' found\n\nUsage: codex exec [OPTIONS] [PROMPT]\n",
    })
    expect(atEnd).toMatchObject([{ type: 'failure', kind: 'version' }])
    // A setting Ralph passes that this version cannot read is one too; an error in the user's own config is not.
    const config = (key: string) =>
      parse([], {
        code: 1,
        signal: null,
        stderr: `Error loading config.toml: unknown variant \`bogus\`, expected \`save-all\` or \`none\`\nin \`${key}\`\n`,
      }).atEnd
    expect(config('history.persistence')).toMatchObject([{ type: 'failure', kind: 'version' }])
    expect(config('model_reasoning_effort')).toMatchObject([
      { type: 'failure', kind: 'crash', message: expect.stringContaining('model_reasoning_effort') },
    ])
  })

  it('unwraps the shell Codex ran a command with', () => {
    expect(unwrapShell("/bin/bash -lc 'echo hi'")).toBe('echo hi')
    expect(unwrapShell("/bin/bash -lc 'echo '\\''quoted'\\'''")).toBe("echo 'quoted'")
    expect(unwrapShell('bash -lc ls')).toBe('ls')
    expect(unwrapShell('/usr/bin/python3 x.py')).toBe('/usr/bin/python3 x.py')
  })
})

describe('Codex launch', () => {
  const spec = (over: Partial<EngineSessionSpec> = {}): EngineSessionSpec => ({
    projectDir: '/work/my.project',
    system: 'Instructions with "quotes", a \\ backslash\nand a newline.',
    prompt: 'The task.',
    model: 'gpt-5.5',
    ralphTools: { command: '/usr/bin/node', args: ['/x/relay.cjs', '/tmp/s.sock'], env: { A_B: 'c"d' } },
    images: ['/work/my.project/.ralph/attachments/a.png'],
    sessionHome: '/tmp/ralph-eng-1',
    ...over,
  })

  it('asks for one non-interactive JSON session with Ralph’s settings layered over the user’s config', async () => {
    const launch = await codexAdapter.launch(spec())
    expect(launch.env).toEqual({ CODEX_HOME: '/tmp/ralph-eng-1/.codex' })
    expect(launch.stdin).toBe('The task.')
    const a = launch.args
    expect(a.slice(0, 4)).toEqual(['exec', '--image', '/work/my.project/.ralph/attachments/a.png', '--json'])
    expect(a.at(-1)).toBe('-')
    for (const flag of ['--dangerously-bypass-approvals-and-sandbox', '--skip-git-repo-check', '--ephemeral'])
      expect(a).toContain(flag)
    expect(a[a.indexOf('-C') + 1]).toBe('/work/my.project')
    expect(a[a.indexOf('-m') + 1]).toBe('gpt-5.5')
    const overrides = a.flatMap((x, i) => (a[i - 1] === '-c' ? [x] : []))
    expect(overrides).toEqual(
      expect.arrayContaining([
        'analytics.enabled=false',
        'check_for_update_on_startup=false',
        'history.persistence="none"',
        `developer_instructions=${tomlString(spec().system)}`,
        'mcp_servers.ralph.command="/usr/bin/node"',
        'mcp_servers.ralph.args=["/x/relay.cjs", "/tmp/s.sock"]',
        'mcp_servers.ralph.env={"A_B" = "c\\"d"}',
        'mcp_servers.ralph.required=true',
      ]),
    )
  })

  it("leaves the model to the user's config when none is picked, and puts very long instructions in the prompt", async () => {
    const system = 'x'.repeat(200 * 1024)
    const launch = await codexAdapter.launch(spec({ model: null, system, images: [] }))
    expect(launch.args).not.toContain('-m')
    expect(launch.args.some((x) => x.startsWith('developer_instructions='))).toBe(false)
    expect(launch.stdin).toBe(`<instructions>\n${system}\n</instructions>\n\nThe task.`)
  })

  it('writes TOML strings Codex reads back exactly', () => {
    expect(tomlString('a"b\\c\nd\te\u0001\u007f')).toBe('"a\\"b\\\\c\\nd\\te\\u0001\\u007f"')
  })

  it('reads its version', () => {
    expect(ENGINE_CLIS.codex.parseVersion('codex-cli 0.169.0\n')).toBe('0.169.0')
    expect(ENGINE_CLIS.codex.parseVersion('something else')).toBeNull()
  })
})

describe("Codex's model, for pricing", () => {
  it("reads the model the user's config.toml selects: its profile's, else the top-level one", () => {
    const config = [
      'model = "gpt-5.5"',
      'profile = "deep"',
      'model_provider = "openai"',
      '',
      '[profiles.fast]',
      'model = "gpt-5.6-luna"',
      '',
      '[profiles.deep]',
      'model_reasoning_effort = "high"',
      'model = "gpt-6-sol"',
      '',
      '[model_providers.x]',
      'model = "not-this"',
    ].join('\n')
    expect(configuredCodexModel(config)).toBe('gpt-6-sol')
    expect(configuredCodexModel(config.replace('profile = "deep"', 'profile = "none-such"'))).toBe('gpt-5.5')
    expect(configuredCodexModel(config.replace('profile = "deep"\n', ''))).toBe('gpt-5.5')
    expect(configuredCodexModel('[tui]\nmodel = "x"\n')).toBeNull()
  })
})
