// The Codex adapter against the REAL `codex` CLI (codex-cli 0.169.0, a devDependency): its launch() arguments run
// `codex exec` against the Responses wire fake over real HTTP, with scripted replies that call Codex's own tools
// (`exec_command`, its `apply_patch` command) and Ralph's MCP server; the adapter's parser reads the real stream.
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { EngineEvent, EngineSessionSpec, EngineToolCall } from '../../../src/main/engines'
import { appInstallPaths, installBinds } from '../../../src/main/sandbox/appInstall'
import { memoryLogger } from '../../../src/main/workspace/logFile'
import {
  openAiErrorBody,
  startResponsesServer,
  type ResponsesServer,
} from '../../fixtures/wire/responsesServer'
import { makeTempDir } from '../../helpers/tempDir'
import { MCP_SERVER, runCodexSession, TSX_BIN, userConfig } from '../../fixtures/engines/codexSession'

/** A real session is a few seconds; a busy 2-core CI machine gets generous room. */
const SESSION_MS = 120_000

const KEY = 'sk-ralph-test'
const SYSTEM = 'You are Ralph, iteration 1. RALPH-INSTRUCTIONS-MARKER'

interface Ctx {
  server: ResponsesServer
  project: ReturnType<typeof makeTempDir>
  home: ReturnType<typeof makeTempDir>
  mcpLog: string
  spec(over?: Partial<EngineSessionSpec>): EngineSessionSpec
}

const tools = (events: EngineEvent[]): EngineToolCall[] =>
  events.flatMap((e) => (e.type === 'tool' ? [e.call] : []))
const last = (events: EngineEvent[]) => events[events.length - 1]

/** The text of every developer and user message of a recorded request. */
function messageTexts(body: unknown, role: string): string[] {
  const input = (body as { input: { role?: string; content?: { text?: string }[] }[] }).input
  return input.filter((i) => i.role === role).flatMap((i) => (i.content ?? []).map((c) => c.text ?? ''))
}

function useSession(): Ctx {
  const t = {} as Ctx
  beforeEach(async () => {
    t.server = await startResponsesServer({ apiKey: KEY })
    t.server.fallback = { kind: 'text', text: 'Nothing more to do.' }
    t.project = makeTempDir('ralph-codex-project-')
    t.home = makeTempDir('ralph-codex-home-')
    t.mcpLog = join(t.home.path, 'mcp-calls.jsonl')
    t.spec = (over = {}) => ({
      projectDir: t.project.path,
      system: SYSTEM,
      prompt: 'Write hello.txt and src/notes.txt.',
      model: null,
      ralphTools: { command: TSX_BIN, args: [MCP_SERVER], env: { RALPH_TEST_MCP_LOG: t.mcpLog } },
      images: [],
      sessionHome: t.home.path,
      ...over,
    })
  })
  afterEach(async () => {
    await t.server.close()
    t.project.cleanup()
    t.home.cleanup()
  })
  return t
}

describe('Codex engine: a real `codex exec` session', () => {
  const t = useSession()

  it(
    'runs a shell command and a patch, and reports them with Ralph names, the usage and the end',
    async () => {
      t.server.enqueue(
        {
          kind: 'tools',
          calls: [{ name: 'exec_command', arguments: { cmd: 'echo hi > hello.txt && echo wrote' } }],
        },
        {
          kind: 'tools',
          calls: [
            {
              name: 'exec_command',
              arguments: {
                cmd: "apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: src/notes.txt\n+hello\n+world\n*** End Patch\nEOF\n",
              },
            },
          ],
        },
        // Codex's known models edit with its freeform `apply_patch` tool (a custom tool call).
        {
          kind: 'tools',
          calls: [
            {
              name: 'apply_patch',
              arguments: {
                input: '*** Begin Patch\n*** Update File: hello.txt\n@@\n-hi\n+hello\n*** End Patch\n',
              },
            },
          ],
        },
        { kind: 'text', text: 'Wrote hello.txt and src/notes.txt.' },
      )
      const run = await runCodexSession({ spec: t.spec(), config: userConfig(t.server), key: KEY })
      if (process.env.RALPH_CAPTURE_CODEX)
        writeFileSync(process.env.RALPH_CAPTURE_CODEX, run.lines.join('\n') + '\n')

      expect(run.code, run.stderr).toBe(0)
      expect(readFileSync(join(t.project.path, 'hello.txt'), 'utf8')).toBe('hello\n')
      expect(readFileSync(join(t.project.path, 'src/notes.txt'), 'utf8')).toBe('hello\nworld\n')

      expect(run.events[0]).toMatchObject({ type: 'init', sessionId: expect.any(String) })
      const [command, patch, update, ...more] = tools(run.events)
      expect(more).toEqual([])
      expect(command).toMatchObject({
        name: 'run_command',
        args: { command: 'echo hi > hello.txt && echo wrote' },
        ok: true,
        ranCommand: true,
        changedFiles: [],
      })
      expect(command!.output).toBe('wrote\nExit code: 0')
      expect(patch).toMatchObject({
        name: 'apply_patch',
        args: { changes: [{ path: 'src/notes.txt', kind: 'add' }] },
        ok: true,
        ranCommand: false,
        changedFiles: ['src/notes.txt'],
      })
      expect(update).toMatchObject({
        name: 'apply_patch',
        args: { changes: [{ path: 'hello.txt', kind: 'update' }] },
        ok: true,
        changedFiles: ['hello.txt'],
      })
      expect(run.events.filter((e) => e.type === 'text')).toEqual([
        { type: 'text', text: 'Wrote hello.txt and src/notes.txt.' },
      ])

      // The usage is the turn's, summed over its four model requests exactly as the service billed them.
      const bills = t.server.bills()
      expect(bills).toHaveLength(4)
      const sum = (f: (b: (typeof bills)[number]) => number) => bills.reduce((s, b) => s + f(b), 0)
      const usage = run.events.find((e) => e.type === 'usage')
      expect(usage).toEqual({
        type: 'usage',
        model: null,
        inputTokens: sum((b) => b.uncachedInput + b.cacheRead),
        cacheReadTokens: sum((b) => b.cacheRead),
        cacheWriteTokens: 0,
        outputTokens: sum((b) => b.output),
        reasoningTokens: 0,
        costUsd: null,
      })
      expect(last(run.events)).toEqual({ type: 'done', text: 'Wrote hello.txt and src/notes.txt.' })

      // What Codex sent: the user's model, Ralph's instructions as a developer message, the prompt from stdin.
      const first = t.server.requests[0]!.body as { model: string }
      expect(first.model).toBe('gpt-5.5')
      expect(messageTexts(first, 'developer')).toContain(SYSTEM)
      expect(messageTexts(first, 'user').join('\n')).toContain('Write hello.txt and src/notes.txt.')
      // Telemetry off, Codex's own sandbox and approvals off (Ralph's sandbox wraps the session).
      const meta = JSON.parse(String(t.server.requests[0]!.headers['x-codex-turn-metadata'])) as Record<
        string,
        unknown
      >
      expect(meta).toMatchObject({ analytics_enabled: false, sandbox_mode: 'danger-full-access' })
      // No session files (`--ephemeral`) and no history file in the session's CODEX_HOME.
      expect(existsSync(join(t.home.path, '.codex', 'sessions'))).toBe(false)
      expect(existsSync(join(t.home.path, '.codex', 'history.jsonl'))).toBe(false)
    },
    SESSION_MS,
  )

  it(
    "offers Ralph's tools as MCP server `ralph` next to the user's own servers, and attaches the task's images",
    async () => {
      // The user's own MCP server stays in their config.toml; its tools are theirs (outside the snapshots).
      const notesLog = join(t.home.path, 'notes-calls.jsonl')
      const config = [
        userConfig(t.server, 'ralph-fallback-model'),
        '[mcp_servers.notes]',
        `command = "${TSX_BIN}"`,
        `args = ["${MCP_SERVER}"]`,
        `env = { RALPH_TEST_MCP_LOG = "${notesLog}" }`,
        'required = true',
        '',
      ].join('\n')
      const image = join(t.project.path, 'shot.png')
      writeFileSync(image, Buffer.from(PNG_1X1, 'base64'))
      t.server.enqueue(
        {
          kind: 'tools',
          calls: [{ name: 'mcp__ralph__mark_complete', arguments: { summary: 'Wrote it.' } }],
        },
        { kind: 'tools', calls: [{ name: 'mcp__notes__fail_always', arguments: {} }] },
        { kind: 'text', text: 'Marked complete.' },
      )
      const run = await runCodexSession({ spec: t.spec({ images: [image] }), config, key: KEY })
      expect(run.code, run.stderr).toBe(0)

      const [ours, theirs, ...more] = tools(run.events)
      expect(more).toEqual([])
      expect(ours).toEqual({
        id: expect.any(String),
        name: 'mark_complete',
        args: { summary: 'Wrote it.' },
        ok: true,
        output: 'Task marked complete.',
        changedFiles: [],
        ranCommand: false,
      })
      expect(theirs).toMatchObject({
        name: 'mcp__notes__fail_always',
        ok: false,
        output: 'This tool always fails.',
        outsideSnapshot: true,
      })
      // The calls really reached the servers, with the model's arguments.
      expect(readFileSync(t.mcpLog, 'utf8')).toBe(
        JSON.stringify({ name: 'mark_complete', args: { summary: 'Wrote it.' } }) + '\n',
      )
      expect(readFileSync(notesLog, 'utf8')).toBe(JSON.stringify({ name: 'fail_always', args: {} }) + '\n')
      expect(last(run.events)).toEqual({ type: 'done', text: 'Marked complete.' })

      // The first request already offered Ralph's tools (Codex waited for the required server) and the image.
      const first = JSON.stringify(t.server.requests[0]!.body)
      expect(first).toContain('"mcp__ralph"')
      expect(first).toContain('"mark_complete"')
      expect(first).toContain('"input_image"')
    },
    SESSION_MS,
  )

  it(
    "reaches Ralph's tools through Codex's tool search, as its known models see MCP tools",
    async () => {
      // For a model Codex knows (`gpt-5.5`), MCP tools are not declared up front: the model finds them with the
      // client-run `tool_search` tool, and Codex adds the found namespace to the conversation.
      t.server.enqueue(
        { kind: 'tools', calls: [{ name: 'tool_search', arguments: { query: 'mark_complete', limit: 8 } }] },
        {
          kind: 'tools',
          calls: [{ name: 'mcp__ralph__mark_complete', arguments: { summary: 'Found and marked.' } }],
        },
        { kind: 'text', text: 'Marked complete.' },
      )
      const run = await runCodexSession({ spec: t.spec(), config: userConfig(t.server), key: KEY })
      expect(run.code, run.stderr).toBe(0)
      const first = JSON.stringify(t.server.requests[0]!.body)
      expect(first).toContain('"tool_search"')
      expect(first).not.toContain('"mark_complete"')
      expect(tools(run.events)).toEqual([
        {
          id: expect.any(String),
          name: 'mark_complete',
          args: { summary: 'Found and marked.' },
          ok: true,
          output: 'Task marked complete.',
          changedFiles: [],
          ranCommand: false,
        },
      ])
      expect(readFileSync(t.mcpLog, 'utf8')).toContain('Found and marked.')
      expect(last(run.events)).toEqual({ type: 'done', text: 'Marked complete.' })
    },
    SESSION_MS,
  )

  it(
    "works inside bubblewrap, with Codex's own sandbox off",
    async () => {
      // A bubblewrap sandbox like Ralph's: the file system read-only, /tmp a fresh tmpfs, the app's own install
      // (where codex is, in a checkout under /tmp too) and the test's MCP server read-only again, the project and
      // the session home writable.
      const bwrap = ['/usr/bin/bwrap', '/bin/bwrap', '/usr/local/bin/bwrap'].find((p) => existsSync(p))
      expect(bwrap, 'bubblewrap is installed where Ralph looks for it').toBeDefined()
      const install = installBinds(
        [...(await appInstallPaths(memoryLogger())), dirname(MCP_SERVER)],
        ['/tmp'],
      )
      const wrapper = [bwrap!, '--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp']
        .concat(install.flatMap((p) => ['--ro-bind', p, p]))
        .concat(['--bind', t.project.path, t.project.path, '--bind', t.home.path, t.home.path])
        .concat(['--unshare-pid', '--die-with-parent', '--'])
      t.server.enqueue(
        {
          kind: 'tools',
          calls: [{ name: 'exec_command', arguments: { cmd: 'echo sandboxed > inside.txt' } }],
        },
        { kind: 'text', text: 'Done.' },
      )
      const run = await runCodexSession({ spec: t.spec(), config: userConfig(t.server), key: KEY, wrapper })
      expect(run.code, run.stderr).toBe(0)
      expect(tools(run.events)).toMatchObject([{ name: 'run_command', ok: true }])
      expect(readFileSync(join(t.project.path, 'inside.txt'), 'utf8')).toBe('sandboxed\n')

      // What the adapter's `--dangerously-bypass-approvals-and-sandbox` prevents: with Codex's own sandbox on, its
      // sandbox cannot start inside this one and the command never runs (`exec --json` reports it failed, or not at all).
      t.server.enqueue(
        { kind: 'tools', calls: [{ name: 'exec_command', arguments: { cmd: 'echo own > own.txt' } }] },
        { kind: 'text', text: 'Done.' },
      )
      const own = await runCodexSession({
        spec: t.spec(),
        config: userConfig(t.server),
        key: KEY,
        wrapper,
        editArgs: (args) =>
          args.flatMap((a) =>
            a === '--dangerously-bypass-approvals-and-sandbox'
              ? ['--sandbox', 'workspace-write', '-c', 'approval_policy="never"']
              : [a],
          ),
      })
      expect(own.code, own.stderr).toBe(0)
      expect(existsSync(join(t.project.path, 'own.txt'))).toBe(false)
      expect(tools(own.events).filter((c) => c.ok)).toEqual([])
      // (What the model is told: "bwrap: execvp codex-linux-sandbox: No such file or directory" here, "error
      // building bubblewrap command: Read-only file system" when /tmp is not writable.)
      expect(JSON.stringify(t.server.requests.at(-1)!.body)).toMatch(
        /Process exited with code 1[^"]*(bwrap|bubblewrap)/,
      )
    },
    SESSION_MS,
  )

  it(
    'reports a refused or missing key as not logged in',
    async () => {
      const refused = await runCodexSession({ spec: t.spec(), config: userConfig(t.server), key: 'sk-wrong' })
      expect(t.server.requests.at(-1)!.status).toBe(401)
      expect(last(refused.events)).toMatchObject({ type: 'failure', kind: 'not-logged-in' })
      expect((last(refused.events) as { message: string }).message).toMatch(/401 Unauthorized/)

      const missing = await runCodexSession({ spec: t.spec(), config: userConfig(t.server) })
      expect(last(missing.events)).toMatchObject({ type: 'failure', kind: 'not-logged-in' })
      expect((last(missing.events) as { message: string }).message).toMatch(/RALPH_TEST_CODEX_KEY/)
      expect(tools(refused.events).concat(tools(missing.events))).toEqual([])
    },
    SESSION_MS,
  )

  it(
    "reports a subscription's usage limit with the time it resets",
    async () => {
      const resetsAt = Math.floor(Date.now() / 1000) + 2 * 3600
      t.server.enqueue({
        kind: 'error',
        status: 429,
        body: {
          error: {
            type: 'usage_limit_reached',
            message: 'The usage limit has been reached',
            plan_type: 'plus',
            resets_at: resetsAt,
            resets_in_seconds: 2 * 3600,
          },
        },
      })
      const run = await runCodexSession({ spec: t.spec(), config: userConfig(t.server), key: KEY })
      const limit = last(run.events)
      expect(limit).toMatchObject({ type: 'limit', message: expect.stringMatching(/hit your usage limit/) })
      // Codex names the reset to the minute ("try again at 5:12 AM").
      const resetAt = (limit as { resetAt: number }).resetAt
      expect(Math.abs(resetAt - resetsAt * 1000)).toBeLessThan(60_000)
      expect(run.events.filter((e) => e.type === 'limit' || e.type === 'failure')).toHaveLength(1)
    },
    SESSION_MS,
  )

  it(
    "reports the service's other errors as a provider failure",
    async () => {
      t.server.enqueue({
        kind: 'error',
        status: 400,
        body: openAiErrorBody('Invalid value for model.', 'invalid_request_error', 'model', null),
      })
      const run = await runCodexSession({ spec: t.spec(), config: userConfig(t.server), key: KEY })
      expect(last(run.events)).toMatchObject({
        type: 'failure',
        kind: 'provider',
        message: expect.stringMatching(/Invalid value for model/),
      })
    },
    SESSION_MS,
  )

  it(
    'reports a session killed mid-turn as a crash',
    async () => {
      let kill: () => void = () => {}
      // The model request arrives, then the session is stopped while the request is still unanswered.
      t.server.enqueue({
        kind: 'computed',
        reply: () => {
          kill()
          return { kind: 'hang' }
        },
      })
      const run = await runCodexSession({
        spec: t.spec(),
        config: userConfig(t.server),
        key: KEY,
        onStart: (k) => (kill = k),
      })
      expect(run.signal).toBe('SIGKILL')
      expect(run.events.some((e) => e.type === 'done')).toBe(false)
      expect(last(run.events)).toMatchObject({
        type: 'failure',
        kind: 'crash',
        message: expect.stringMatching(/^Codex was stopped by SIGKILL before its turn finished/),
      })
    },
    SESSION_MS,
  )
})

/** A 1×1 PNG. */
const PNG_1X1 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=='
