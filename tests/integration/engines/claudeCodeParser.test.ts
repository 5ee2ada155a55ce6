// The Claude Code adapter without running the CLI: its parser over stream-json transcripts captured from the real
// Claude Code 2.1.328 (tests/fixtures/engines/claudeTranscript*.jsonl, recorded against the Anthropic wire fake by
// the real-CLI tests' helper), the limit messages' reset times, the tool mapping and launch()'s arguments.
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  claudeCodeAdapter,
  ENGINE_CLIS,
  type EngineEvent,
  type EngineSessionSpec,
} from '../../../src/main/engines'
import { parseResetAt } from '../../../src/main/engines/claudeCode/limits'
import { ofType } from '../../fixtures/engines/claudeSession'

const fixture = (name: string) =>
  readFileSync(fileURLToPath(new URL(`../../fixtures/engines/${name}`, import.meta.url)), 'utf8')
    .split('\n')
    .filter(Boolean)

/** The project folder the transcript's session ran in (its init line's cwd). */
const cwdOf = (lines: string[]) => (lines[0] ? (JSON.parse(lines[0]) as { cwd: string }).cwd : '/p')

function parse(
  lines: string[],
  exit: { code: number | null; signal: string | null; stderr: string } = {
    code: 0,
    signal: null,
    stderr: '',
  },
): EngineEvent[] {
  const parser = claudeCodeAdapter.createParser({ projectDir: cwdOf(lines) })
  return [...lines.flatMap((l) => parser.line(l)), ...parser.end(exit)]
}

type Result = {
  total_cost_usd: number
  modelUsage: Record<
    string,
    {
      inputTokens: number
      outputTokens: number
      cacheReadInputTokens: number
      cacheCreationInputTokens: number
    }
  >
}
const resultOf = (lines: string[]) => JSON.parse(lines.find((l) => l.includes('"type":"result"'))!) as Result

function totals(events: EngineEvent[]) {
  const usage = ofType(events, 'usage')
  const sum = (pick: (u: (typeof usage)[number]) => number) => usage.reduce((s, u) => s + pick(u), 0)
  return {
    input: sum((u) => u.inputTokens),
    output: sum((u) => u.outputTokens),
    cacheRead: sum((u) => u.cacheReadTokens),
    cacheWrite: sum((u) => u.cacheWriteTokens),
    cost: sum((u) => u.costUsd ?? 0),
  }
}

describe('Claude Code stream-json → engine events (captured transcript)', () => {
  const lines = fixture('claudeTranscript.jsonl')

  it('gives init, the text once, each tool with Ralph names, usage that adds up, done', () => {
    const events = parse(lines)
    expect(events[0]).toMatchObject({ type: 'init', model: 'claude-opus-5-5', version: '2.1.328' })
    expect(
      ofType(events, 'text')
        .map((e) => e.text)
        .join(''),
    ).toBe('I will create the file.The notes are written and the task is marked complete.')
    const calls = ofType(events, 'tool').map((e) => e.call)
    expect(calls.map((c) => [c.name, c.args, c.ok, c.changedFiles, c.ranCommand])).toEqual([
      ['write_file', { path: 'notes.md', content: 'one\ntwo\n' }, true, ['notes.md'], false],
      ['edit_file', { path: 'notes.md', old_string: 'two', new_string: 'three' }, true, ['notes.md'], false],
      ['run_command', { command: 'cat notes.md && exit 3' }, false, [], true],
      ['mark_complete', { summary: 'Notes written.' }, true, [], false],
    ])
    expect(calls[2]!.output).toBe('Exit code 3\none\nthree')
    expect(calls[3]!.output).toBe('Task marked complete: Notes written.')
    // Tokens add up to Claude Code's own per-model totals, the cost to its total, once.
    const result = resultOf(lines)
    const model = result.modelUsage['claude-opus-5-5']!
    expect(totals(events)).toEqual({
      // All prompt tokens: Claude Code's uncached input plus its cache reads and writes.
      input: model.inputTokens + model.cacheReadInputTokens + model.cacheCreationInputTokens,
      output: model.outputTokens,
      cacheRead: model.cacheReadInputTokens,
      cacheWrite: model.cacheCreationInputTokens,
      cost: result.total_cost_usd,
    })
    // One usage event per model call (five) plus the result's correction, which carries the cost.
    const usage = ofType(events, 'usage')
    expect(usage).toHaveLength(6)
    expect(usage.slice(0, 5).every((u) => u.costUsd === 0)).toBe(true)
    expect(events.at(-1)).toEqual({
      type: 'done',
      text: 'The notes are written and the task is marked complete.',
    })
  })

  it('without partial messages: the text comes once from the assistant messages, tokens from the result', () => {
    const events = parse(lines.filter((l) => !l.includes('"type":"stream_event"')))
    expect(
      ofType(events, 'text')
        .map((e) => e.text)
        .join(''),
    ).toBe('I will create the file.The notes are written and the task is marked complete.')
    expect(ofType(events, 'tool')).toHaveLength(4)
    const result = resultOf(lines)
    expect(totals(events)).toMatchObject({
      output: result.modelUsage['claude-opus-5-5']!.outputTokens,
      cost: result.total_cost_usd,
    })
  })

  it('counts no token twice when the streamed calls name the model otherwise than the result’s table', () => {
    const dated = lines.map((l) =>
      l.includes('"message_start"')
        ? l.replace('"model":"claude-opus-5-5"', '"model":"claude-opus-5-5-20261101"')
        : l,
    )
    const events = parse(dated)
    const result = resultOf(lines)
    const model = result.modelUsage['claude-opus-5-5']!
    expect(totals(events)).toEqual({
      // All prompt tokens: Claude Code's uncached input plus its cache reads and writes.
      input: model.inputTokens + model.cacheReadInputTokens + model.cacheCreationInputTokens,
      output: model.outputTokens,
      cacheRead: model.cacheReadInputTokens,
      cacheWrite: model.cacheCreationInputTokens,
      cost: result.total_cost_usd,
    })
    expect(ofType(events, 'usage').at(-1)).toMatchObject({ model: 'claude-opus-5-5', outputTokens: 0 })
  })

  it('a 401 ends as not logged in, with Claude Code’s message, and no text', () => {
    const events = parse(fixture('claudeTranscript401.jsonl'))
    expect(events.at(-1)).toEqual({
      type: 'failure',
      kind: 'not-logged-in',
      message: 'Invalid API key · Fix external API key',
    })
    expect(ofType(events, 'text')).toEqual([])
  })

  it('a usage limit after a tool call: the tool, then a limit with the reset time', () => {
    const events = parse(fixture('claudeTranscriptLimit.jsonl'))
    expect(ofType(events, 'tool').map((e) => e.call.name)).toEqual(['run_command'])
    expect(events.at(-1)).toEqual({
      type: 'limit',
      message: 'API Error: Request rejected (429) · Claude AI usage limit reached',
      resetAt: 1798765200_000,
    })
  })

  it("a subscription's used-up window (OAuth login): its rate_limit_event's exact reset", () => {
    const events = parse(fixture('claudeTranscriptSubscriptionLimit.jsonl'))
    expect(events.at(-1)).toEqual({
      type: 'limit',
      message: "You've hit your 5-hour limit · resets Jan 1, 2027, 1am (UTC)",
      resetAt: 1798765200_000,
    })
  })

  it('the process ending without a result line is a crash with the stderr tail; a bad flag is a version problem', () => {
    const cut = lines.slice(0, 10)
    const crash = parse(cut, { code: 1, signal: null, stderr: 'Error: something broke\n    at main' })
    expect(crash.at(-1)).toMatchObject({ type: 'failure', kind: 'crash' })
    expect((crash.at(-1) as { message: string }).message).toMatch(/exited with code 1.*something broke/s)
    const killed = parse(cut, { code: null, signal: 'SIGTERM', stderr: '' })
    expect(killed.at(-1)).toMatchObject({
      type: 'failure',
      kind: 'crash',
      message: expect.stringMatching(/SIGTERM/),
    })
    const old = parse([], {
      code: 1,
      signal: null,
      stderr: "error: unknown option '--no-session-persistence'",
    })
    expect(old).toEqual([expect.objectContaining({ type: 'failure', kind: 'version' })])
    const login = parse([], { code: 1, signal: null, stderr: 'Invalid API key · Please run /login' })
    expect(login).toEqual([expect.objectContaining({ type: 'failure', kind: 'not-logged-in' })])
  })
})

describe('Claude Code result lines (shapes as the CLI prints them)', () => {
  const result = (fields: Record<string, unknown>) =>
    JSON.stringify({
      type: 'result',
      subtype: 'success',
      is_error: true,
      total_cost_usd: 0,
      modelUsage: {},
      ...fields,
    })
  const last = (...lines: string[]) => {
    const parser = claudeCodeAdapter.createParser({ projectDir: '/p' })
    return lines.flatMap((l) => parser.line(l)).at(-1)
  }

  it('a subscription limit with a wall-clock reset, or a rejected rate_limit_event’s time', () => {
    const event = last(
      JSON.stringify({
        type: 'rate_limit_event',
        rate_limit_info: { status: 'rejected', resetsAt: 1798765200, rateLimitType: 'five_hour' },
      }),
      result({ api_error_status: 429, result: "You've hit your limit" }),
    )
    expect(event).toEqual({ type: 'limit', message: "You've hit your limit", resetAt: 1798765200_000 })
    const clock = last(result({ result: '5-hour limit reached ∙ resets 3pm' }))
    expect(clock).toMatchObject({ type: 'limit' })
    expect(new Date((clock as { resetAt: number }).resetAt).getHours()).toBe(15)
  })

  it('API failures are provider failures; an OAuth login gone is not-logged-in; a plain 429 is a limit', () => {
    expect(
      last(
        result({
          api_error_status: 529,
          api_error_type: 'overloaded_error',
          result: 'API Error: 529 Overloaded',
        }),
      ),
    ).toMatchObject({ type: 'failure', kind: 'provider' })
    expect(last(result({ result: 'Credit balance is too low' }))).toMatchObject({
      type: 'failure',
      kind: 'provider',
    })
    expect(
      last(result({ api_error_status: 403, result: 'OAuth token revoked · Please run /login' })),
    ).toMatchObject({ type: 'failure', kind: 'not-logged-in' })
    expect(
      last(result({ api_error_status: 429, result: 'API Error: Request rejected (429) · rate limited' })),
    ).toEqual({ type: 'limit', message: 'API Error: Request rejected (429) · rate limited', resetAt: null })
    expect(last(result({ subtype: 'error_during_execution', errors: ['boom'] }))).toEqual({
      type: 'failure',
      kind: 'crash',
      message: 'boom',
    })
  })

  it("reads Claude Code's own error kind: a login problem, a billing limit that resets or one that does not", () => {
    const notice = (error: string, text: string) =>
      JSON.stringify({
        type: 'assistant',
        parent_tool_use_id: null,
        error,
        message: { id: 'n', model: '<synthetic>', content: [{ type: 'text', text }] },
      })
    expect(
      last(notice('oauth_org_not_allowed', 'x'), result({ result: 'Your organization is not allowed' })),
    ).toMatchObject({
      type: 'failure',
      kind: 'not-logged-in',
    })
    expect(
      last(notice('billing_error', 'x'), result({ result: 'spend limit reached · resets Dec 1' })),
    ).toMatchObject({
      type: 'limit',
      resetAt: expect.any(Number),
    })
    expect(last(notice('billing_error', 'x'), result({ result: 'spend limit reached' }))).toMatchObject({
      type: 'failure',
      kind: 'provider',
    })
    // The notice is not the answer's text.
    const parser = claudeCodeAdapter.createParser({ projectDir: '/p' })
    expect(parser.line(notice('rate_limit', 'API Error: Request rejected (429)'))).toEqual([])
  })

  it('maps other tools: MultiEdit and NotebookEdit change files, a user MCP tool is outside the snapshots', () => {
    const parser = claudeCodeAdapter.createParser({ projectDir: '/p' })
    const use = (id: string, name: string, input: unknown) =>
      JSON.stringify({
        type: 'assistant',
        parent_tool_use_id: null,
        message: { id: `m-${id}`, content: [{ type: 'tool_use', id, name, input }] },
      })
    const done = (id: string, isError = false) =>
      JSON.stringify({
        type: 'user',
        message: {
          content: [
            {
              type: 'tool_result',
              tool_use_id: id,
              content: [{ type: 'text', text: 'ok' }],
              is_error: isError,
            },
          ],
        },
      })
    const calls = [
      use('1', 'MultiEdit', { file_path: '/p/a/b.ts', edits: [] }),
      done('1'),
      use('2', 'mcp__github__create_issue', { title: 't' }),
      done('2'),
      use('3', 'Read', { file_path: '/elsewhere/x.txt' }),
      done('3'),
      use('4', 'Write', { file_path: '/p/c.txt', content: '' }),
      done('4', true),
      use('5', 'Glob', { pattern: '**/*.ts', path: '/p/src' }),
      done('5'),
      use('6', 'Write', { file_path: '/tmp/elsewhere.txt', content: '' }),
      done('6'),
    ].flatMap((l) => parser.line(l))
    expect(
      calls.map((e) =>
        e.type === 'tool' ? [e.call.name, e.call.args, e.call.changedFiles, e.call.outsideSnapshot] : e,
      ),
    ).toEqual([
      ['MultiEdit', { file_path: 'a/b.ts', edits: [] }, ['a/b.ts'], undefined],
      ['mcp__github__create_issue', { title: 't' }, [], true],
      ['read_file', { path: '/elsewhere/x.txt' }, [], undefined],
      ['write_file', { path: 'c.txt', content: '' }, [], undefined],
      ['list_files', { path: 'src', pattern: '**/*.ts' }, [], undefined],
      ['write_file', { path: '/tmp/elsewhere.txt', content: '' }, [], true],
    ])
  })
})

describe('usage-limit reset times', () => {
  const now = new Date(2026, 10, 27, 10, 0).getTime() // 10:00 local

  it('reads epoch seconds or ms, "resets 3pm", "resets 9am" (tomorrow), "resets Aug 8, 3pm", "resets in 2h 5m"', () => {
    expect(parseResetAt('Claude AI usage limit reached|1798765200', now)).toBe(1798765200_000)
    expect(parseResetAt('limit reached|1798765200123', now)).toBe(1798765200123)
    expect(parseResetAt('5-hour limit reached ∙ resets 3pm', now)).toBe(
      new Date(2026, 10, 27, 15, 0).getTime(),
    )
    expect(parseResetAt('Weekly limit reached · resets 9:30am', now)).toBe(
      new Date(2026, 10, 28, 9, 30).getTime(),
    )
    expect(parseResetAt('spend limit reached · resets Aug 8, 3pm', now)).toBe(
      new Date(2027, 7, 8, 15, 0).getTime(),
    )
    expect(parseResetAt('limit reached · resets Dec 1', now)).toBe(new Date(2026, 11, 1, 0, 0).getTime())
    expect(parseResetAt('usage limit reached, resets in 2h 5m', now)).toBe(now + (2 * 60 + 5) * 60_000)
    expect(parseResetAt('usage limit reached', now)).toBeNull()
  })

  it('honours a zone named after the time', () => {
    // 10:00 UTC; 3pm in Tokyo (UTC+9) is 06:00 UTC the next day.
    const utcNow = Date.UTC(2026, 10, 27, 10, 0)
    expect(parseResetAt('5-hour limit reached ∙ resets 3pm (Asia/Tokyo)', utcNow)).toBe(
      Date.UTC(2026, 10, 28, 6, 0),
    )
    expect(parseResetAt('5-hour limit reached ∙ resets 3pm (UTC)', utcNow)).toBe(
      Date.UTC(2026, 10, 27, 15, 0),
    )
    expect(parseResetAt("You've hit your 5-hour limit · resets 5:09am (UTC)", utcNow)).toBe(
      Date.UTC(2026, 10, 28, 5, 9),
    )
    expect(parseResetAt("You've hit your 5-hour limit · resets Jan 1, 2027, 1am (UTC)", utcNow)).toBe(
      Date.UTC(2027, 0, 1, 1, 0),
    )
  })
})

describe('launch()', () => {
  let home: string
  beforeEach(async () => {
    home = await mkdtemp(join(tmpdir(), 'ralph-cc-launch-'))
  })
  afterEach(async () => {
    await rm(home, { recursive: true, force: true })
  })
  const spec = (over: Partial<EngineSessionSpec> = {}): EngineSessionSpec => ({
    projectDir: '/work/project',
    system: 'Ralph rules.',
    prompt: 'x'.repeat(200_000),
    model: 'claude-sonnet-5',
    ralphTools: { command: '/usr/bin/node', args: ['relay.cjs', '/tmp/s.sock'], env: { A: '1' } },
    images: ['/work/project/.ralph/attachments/shot.png'],
    sessionHome: home,
    ...over,
  })

  it('starts one print-mode stream-json session: prompt on stdin, system file, strict MCP, no prompts, no persistence', async () => {
    const launch = await claudeCodeAdapter.launch(spec())
    const a = launch.args
    const after = (flag: string) => a[a.indexOf(flag) + 1]
    expect(a).toEqual(
      expect.arrayContaining([
        '-p',
        '--verbose',
        '--include-partial-messages',
        '--no-session-persistence',
        '--strict-mcp-config',
      ]),
    )
    expect(after('--output-format')).toBe('stream-json')
    expect(after('--permission-mode')).toBe('acceptEdits')
    expect(after('--model')).toBe('claude-sonnet-5')
    expect(after('--allowedTools')!.split(',')).toEqual(
      expect.arrayContaining([
        'Read',
        'Write',
        'Edit',
        'MultiEdit',
        'Bash',
        'Glob',
        'Grep',
        'LS',
        'mcp__ralph__*',
      ]),
    )
    expect(a).not.toContain('--dangerously-skip-permissions')
    expect(await readFile(after('--append-system-prompt-file')!, 'utf8')).toBe('Ralph rules.')
    expect(JSON.parse(await readFile(after('--mcp-config')!, 'utf8'))).toEqual({
      mcpServers: {
        ralph: {
          type: 'stdio',
          command: '/usr/bin/node',
          args: ['relay.cjs', '/tmp/s.sock'],
          env: { A: '1' },
        },
      },
    })
    expect(after('--mcp-config')!.startsWith(home)).toBe(true)
    // The long prompt is not an argument; the images are named in it for the Read tool.
    expect(a.every((arg) => arg.length < 10_000)).toBe(true)
    expect(launch.stdin!.startsWith('x'.repeat(200_000))).toBe(true)
    expect(launch.stdin).toContain('- /work/project/.ralph/attachments/shot.png')
    expect(launch.env).toMatchObject({
      DISABLE_TELEMETRY: '1',
      DISABLE_AUTOUPDATER: '1',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    })
  })

  it('leaves out --model for the engine default and the system file when there is no system text', async () => {
    const launch = await claudeCodeAdapter.launch(
      spec({ model: null, system: '  ', images: [], prompt: 'Do it.' }),
    )
    expect(launch.args).not.toContain('--model')
    expect(launch.args).not.toContain('--append-system-prompt-file')
    expect(launch.stdin).toBe('Do it.')
  })

  it('reads its version', () => {
    expect(ENGINE_CLIS['claude-code'].parseVersion('2.1.328 (Claude Code)\n')).toBe('2.1.328')
    expect(ENGINE_CLIS['claude-code'].parseVersion('nothing')).toBeNull()
  })
})
