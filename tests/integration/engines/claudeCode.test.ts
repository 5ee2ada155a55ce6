// The Claude Code adapter against the REAL Claude Code CLI (node_modules/.bin/claude) over real HTTP to the
// Anthropic wire-format fake: launch()'s arguments and environment start a working session, and the parser turns
// what the CLI really prints into Ralph's engine events — tools with Ralph's names, usage and cost, completion over
// MCP, a missing login, a usage limit, a killed process.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  anthropicErrorBody,
  startAnthropicServer,
  type AnthropicServer,
} from '../../fixtures/wire/anthropicServer'
import { claudeDirs, ofType, runClaude, type ClaudeDirs } from '../../fixtures/engines/claudeSession'
import { startSubscriptionProxy } from '../../fixtures/engines/claudeSubscriptionProxy'

/** A 1×1 PNG. */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
)

// Claude Code's start-up on a busy 2-core machine: generous, though a session here takes about a second.
const SESSION_MS = 90_000

let server: AnthropicServer
let dirs: ClaudeDirs
beforeEach(async () => {
  server = await startAnthropicServer()
  dirs = await claudeDirs()
})
afterEach(async () => {
  await server.close()
  await dirs.cleanup()
})

/** The requests that were model calls answered with a reply (Claude Code also probes a beta the fake refuses). */
const answered = () => server.requests.filter((r) => (r.notes as { usage?: unknown }).usage !== undefined)

describe('Claude Code adapter with the real CLI', () => {
  it(
    'runs Write, then Bash, then answers: text, two tools with Ralph names and project paths, usage and cost, done',
    async () => {
      server.enqueue(
        {
          kind: 'tools',
          text: 'Creating the file.',
          calls: [
            {
              name: 'Write',
              arguments: { file_path: join(dirs.projectDir, 'src/hello.txt'), content: 'hi\n' },
            },
          ],
        },
        { kind: 'tools', calls: [{ name: 'Bash', arguments: { command: 'cat src/hello.txt' } }] },
        { kind: 'text', text: 'All done: src/hello.txt says hi.' },
      )
      const run = await runClaude(dirs, { baseUrl: server.url, spec: { system: 'RALPH-SYSTEM-7' } })
      expect(run.events[0]).toMatchObject({ type: 'init', version: '2.1.328' })
      const text = ofType(run.events, 'text')
        .map((e) => e.text)
        .join('')
      // Each text once: streamed as deltas, never repeated from the whole assistant message.
      expect(text).toBe('Creating the file.All done: src/hello.txt says hi.')
      const calls = ofType(run.events, 'tool').map((e) => e.call)
      expect(calls).toHaveLength(2)
      expect(calls[0]).toMatchObject({
        name: 'write_file',
        args: { path: 'src/hello.txt', content: 'hi\n' },
        ok: true,
        changedFiles: ['src/hello.txt'],
        ranCommand: false,
      })
      expect(calls[1]).toMatchObject({
        name: 'run_command',
        args: { command: 'cat src/hello.txt' },
        ok: true,
        output: 'hi',
        changedFiles: [],
        ranCommand: true,
      })
      expect(readFileSync(join(dirs.projectDir, 'src/hello.txt'), 'utf8')).toBe('hi\n')

      // Usage: the tokens add up to what the fake billed, the cost to Claude Code's own total, once.
      const usage = ofType(run.events, 'usage')
      const bills = server.bills()
      expect(answered()).toHaveLength(3)
      const sum = (pick: (u: (typeof usage)[number]) => number) => usage.reduce((s, u) => s + pick(u), 0)
      expect(sum((u) => u.outputTokens)).toBe(bills.reduce((s, b) => s + b.output, 0))
      expect(sum((u) => u.cacheReadTokens)).toBe(bills.reduce((s, b) => s + b.cacheRead, 0))
      expect(sum((u) => u.cacheWriteTokens)).toBe(bills.reduce((s, b) => s + b.cacheWrite, 0))
      expect(sum((u) => u.inputTokens)).toBe(
        bills.reduce((s, b) => s + b.uncachedInput + b.cacheRead + b.cacheWrite, 0),
      )
      const result = JSON.parse(run.lines.find((l) => l.includes('"type":"result"'))!) as {
        total_cost_usd: number
      }
      expect(result.total_cost_usd).toBeGreaterThan(0)
      expect(sum((u) => u.costUsd ?? 0)).toBeCloseTo(result.total_cost_usd, 10)
      expect(run.events.at(-1)).toEqual({ type: 'done', text: 'All done: src/hello.txt says hi.' })

      // Ralph's instructions were appended to Claude Code's own system prompt; the prompt came on stdin.
      const first = answered()[0]!.body as { system: { text: string }[]; messages: unknown[] }
      expect(first.system.at(-1)!.text).toContain('RALPH-SYSTEM-7')
      expect(JSON.stringify(first.messages)).toContain('Do the task.')
    },
    SESSION_MS,
  )

  it(
    "calls Ralph's mark_complete over MCP: the tool event is named mark_complete",
    async () => {
      server.enqueue(
        {
          kind: 'tools',
          calls: [{ name: 'mcp__ralph__mark_complete', arguments: { summary: 'Wrote it.' } }],
        },
        { kind: 'text', text: 'Complete.' },
      )
      const run = await runClaude(dirs, { baseUrl: server.url })
      const calls = ofType(run.events, 'tool').map((e) => e.call)
      expect(calls).toEqual([
        expect.objectContaining({
          name: 'mark_complete',
          args: { summary: 'Wrote it.' },
          ok: true,
          output: 'Task marked complete: Wrote it.',
          changedFiles: [],
          ranCommand: false,
        }),
      ])
      expect(calls[0]!.outsideSnapshot).toBeUndefined()
      // The MCP server really ran the call.
      const log = readFileSync(join(dirs.sessionHome, 'mcp-calls.jsonl'), 'utf8')
      expect(log.trim()).toBe(JSON.stringify({ tool: 'mark_complete', summary: 'Wrote it.' }))
      expect(run.events.at(-1)).toEqual({ type: 'done', text: 'Complete.' })
    },
    SESSION_MS,
  )

  it(
    'a rejected API key (401) ends as not logged in',
    async () => {
      await server.close()
      server = await startAnthropicServer({ apiKey: 'the-right-key' })
      // One retry, not Claude Code's default ten (minutes of backoff for a 401).
      const run = await runClaude(dirs, {
        baseUrl: server.url,
        apiKey: 'a-wrong-key',
        env: { CLAUDE_CODE_MAX_RETRIES: '1' },
      })
      const failure = run.events.at(-1)
      expect(failure).toMatchObject({ type: 'failure', kind: 'not-logged-in' })
      expect((failure as { message: string }).message).toMatch(/Invalid API key/)
      expect(ofType(run.events, 'text')).toEqual([])
      expect(ofType(run.events, 'done')).toEqual([])
    },
    SESSION_MS,
  )

  it(
    'no login at all ends as not logged in, without a request',
    async () => {
      const run = await runClaude(dirs, { baseUrl: server.url, apiKey: null })
      expect(run.events.at(-1)).toEqual({
        type: 'failure',
        kind: 'not-logged-in',
        message: 'Not logged in · Please run /login',
      })
      expect(server.requests).toEqual([])
    },
    SESSION_MS,
  )

  it(
    'a usage-limit reply ends as a limit with its reset time',
    async () => {
      const resetSeconds = Math.floor(Date.now() / 1000) + 5 * 3600
      for (let i = 0; i < 4; i++)
        server.enqueue({
          kind: 'error',
          status: 429,
          body: anthropicErrorBody('rate_limit_error', `Claude AI usage limit reached|${resetSeconds}`),
        })
      const run = await runClaude(dirs, { baseUrl: server.url, env: { CLAUDE_CODE_MAX_RETRIES: '0' } })
      const limit = run.events.at(-1)
      expect(limit).toMatchObject({ type: 'limit', resetAt: resetSeconds * 1000 })
      expect((limit as { message: string }).message).toMatch(/usage limit reached/)
      expect(ofType(run.events, 'failure')).toEqual([])
    },
    SESSION_MS,
  )

  it(
    "a subscription's used-up 5-hour window ends as a limit at the window's exact reset",
    async () => {
      const proxy = await startSubscriptionProxy(server.url)
      try {
        const resetSeconds = Math.floor(Date.now() / 1000) + 2 * 3600 + 17
        proxy.exhaust(4, resetSeconds)
        const run = await runClaude(dirs, {
          baseUrl: proxy.url,
          oauthToken: 'sk-ant-oat01-test',
          env: { CLAUDE_CODE_MAX_RETRIES: '0' },
        })
        const limit = run.events.at(-1)
        expect(limit).toMatchObject({ type: 'limit', resetAt: resetSeconds * 1000 })
        // Claude Code's own words for it, e.g. "You've hit your 5-hour limit · resets 5:09am (UTC)".
        expect((limit as { message: string }).message).toMatch(/limit.*resets/i)
        expect(proxy.seen.every((line) => line.startsWith('POST /v1/messages'))).toBe(true)
      } finally {
        await proxy.close()
      }
    },
    SESSION_MS,
  )

  it(
    "names the task's images in the prompt, and Claude Code's Read shows the model the image",
    async () => {
      const image = join(dirs.projectDir, '.ralph/attachments/shot.png')
      mkdirSync(join(dirs.projectDir, '.ralph/attachments'), { recursive: true })
      writeFileSync(image, PNG)
      server.enqueue(
        { kind: 'tools', calls: [{ name: 'Read', arguments: { file_path: image } }] },
        { kind: 'text', text: 'A single pixel.' },
      )
      const run = await runClaude(dirs, { baseUrl: server.url, spec: { images: [image] } })
      const [first, second] = answered()
      expect(JSON.stringify(first!.body)).toContain(image)
      expect(ofType(run.events, 'tool').map((e) => [e.call.name, e.call.args, e.call.ok])).toEqual([
        ['read_file', { path: '.ralph/attachments/shot.png' }, true],
      ])
      // The tool result that went back to the model holds the picture itself.
      const messages = (second!.body as { messages: { content: unknown }[] }).messages
      const results = JSON.stringify(messages.at(-1)!.content)
      expect(results).toContain('"type":"image"')
      expect(results).toContain('"media_type":"image/png"')
      expect(run.events.at(-1)).toEqual({ type: 'done', text: 'A single pixel.' })
    },
    SESSION_MS,
  )

  it(
    'the process killed mid-session: end() reports a crash',
    async () => {
      // The model's reply never comes: the session is waiting on it when it is killed.
      server.enqueue({ kind: 'stall', text: 'Working on' })
      const run = await runClaude(dirs, {
        baseUrl: server.url,
        onEvent: (event, kill) => {
          if (event.type === 'text') kill()
        },
      })
      expect(run.signal).toBe('SIGKILL')
      const last = run.events.at(-1)
      expect(last).toMatchObject({ type: 'failure', kind: 'crash' })
      expect((last as { message: string }).message).toMatch(/stopped by SIGKILL/)
      expect(ofType(run.events, 'done')).toEqual([])
    },
    SESSION_MS,
  )
})
