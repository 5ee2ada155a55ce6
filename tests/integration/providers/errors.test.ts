// Each service's own error shapes, sent by its wire-format fake exactly as the service sends them, through the
// built CLI and the product's real provider code: what a user sees is a task that goes on (a retry after the wait
// the service asked for), or, when the prompt no longer fits, an iteration that ends with a checkpoint and a next
// iteration that starts from it — never a failed task.
import { existsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { ScriptedReply } from '../../fixtures/fakeLlmServer'
import { anthropicErrors } from '../../fixtures/wire/anthropicServer'
import { openAiErrorBody, responsesErrors } from '../../fixtures/wire/responsesServer'
import type { WireServer } from '../../fixtures/wire/shared'
import { runCli } from '../../helpers/cli'
import { makeTempDir } from '../../helpers/tempDir'
import { addTask, setSpec } from '../../../src/main/queue'
import { ndjson, writeAttempt } from '../build/buildCliFixture'
import { parsed, say, tools } from '../loop/harness'
import { modelCalls, PROVIDERS, providerEnv, type ProviderCase } from './wire'
import { memoryLogger } from '../../../src/main/workspace/logFile'

/** The queue's changes in these tests: failures they survive are kept in memory. */
const options = { logger: memoryLogger() }

type Event = {
  type: string
  iteration?: number
  attempt?: number
  delayMs?: number
  reason?: string
  status?: string
  text?: string
  fallback?: boolean
}

const provider = (id: ProviderCase['provider']) => PROVIDERS.find((p) => p.provider === id)!

/** The same reply, answered only once the request has arrived; `at` gets the arrival time. */
const stamped = (reply: ScriptedReply, at: number[]): ScriptedReply => ({
  kind: 'computed',
  reply: () => {
    at.push(Date.now())
    return reply
  },
})

const finish = tools(
  ['write_file', { path: 'done.txt', content: 'done\n' }],
  ['mark_complete', { summary: 'Wrote done.txt.' }],
)

function useServer(c: ProviderCase) {
  const t = {} as {
    server: WireServer & { baseUrl: string }
    project: ReturnType<typeof makeTempDir>
    home: ReturnType<typeof makeTempDir>
    /** `ralph run` as a user types it: `--json` prints the documented events, the human output the retries. */
    run(json: boolean): ReturnType<typeof runCli>
  }
  beforeEach(async () => {
    t.server = await c.start()
    t.server.fallback = say('Nothing more.')
    t.project = makeTempDir('ralph-provider-')
    t.home = makeTempDir('ralph-home-')
    const env = providerEnv(c, t.server, t.home.path)
    t.run = (json) =>
      runCli(['run', 'write done.txt', ...(json ? ['--json'] : []), '--project', t.project.path], { env })
  })
  afterEach(async () => {
    await t.server.close()
    t.project.cleanup()
    t.home.cleanup()
  })
  return t
}

interface Transient {
  name: string
  provider: ProviderCase['provider']
  error: ScriptedReply
  /** Which call meets the error: the parse (a JSON call) or an iteration step (a streamed turn). */
  at: 'parse' | 'iteration'
  /** The reason the retry reports. */
  reason: string
  /** The wait the service asked for (Retry-After), in ms. */
  waitMs?: number
}

const transient: Transient[] = [
  {
    name: 'Anthropic overloaded_error (529)',
    provider: 'anthropic',
    error: anthropicErrors.overloaded(),
    at: 'iteration',
    reason: 'HTTP 529',
  },
  {
    name: 'Anthropic overloaded_error (529) on the parse',
    provider: 'anthropic',
    error: anthropicErrors.overloaded(),
    at: 'parse',
    reason: 'HTTP 529',
  },
  {
    name: 'Anthropic overloaded_error as an error event inside a 200 stream',
    provider: 'anthropic',
    error: anthropicErrors.overloadedInStream(),
    at: 'iteration',
    reason: 'stream error (overloaded_error)',
  },
  {
    name: 'Anthropic 429 rate_limit_error with retry-after: 1',
    provider: 'anthropic',
    error: anthropicErrors.rateLimited(1),
    at: 'iteration',
    reason: 'HTTP 429',
    waitMs: 1000,
  },
  {
    name: 'OpenAI Responses 429 with retry-after: 1',
    provider: 'openai',
    error: responsesErrors.rateLimited(1),
    at: 'iteration',
    reason: 'HTTP 429',
    waitMs: 1000,
  },
  {
    // The SDK turns an error event that comes before any output into the error's HTTP status.
    name: 'OpenAI Responses server_error as an error event inside a 200 stream',
    provider: 'openai',
    error: responsesErrors.serverErrorInStream(),
    at: 'iteration',
    reason: 'HTTP 500',
  },
  {
    name: 'Ollama 500 from /api/chat',
    provider: 'ollama',
    error: { kind: 'error', status: 500 },
    at: 'iteration',
    reason: 'HTTP 500',
  },
  {
    name: 'an OpenAI-compatible server (Ollama /v1) 503',
    provider: 'openai-compatible',
    error: { kind: 'error', status: 503 },
    at: 'iteration',
    reason: 'HTTP 503',
  },
]

describe.each(transient)('$name', { timeout: 120_000 }, (e) => {
  const c = provider(e.provider)
  const t = useServer(c)

  it('is retried with backoff (or after the wait the service asked for), and the task goes on', async () => {
    const at: number[] = []
    const task = parsed({ type: 'bugfix', title: 'Write done.txt' })
    if (e.at === 'parse') t.server.enqueue(stamped(e.error, at), stamped(task, at), finish)
    else t.server.enqueue(task, stamped(e.error, at), stamped(finish, at))
    const result = await t.run(false)
    expect(result.code, result.stderr + result.stdout.slice(-2000)).toBe(0)
    expect(existsSync(join(t.project.path, 'done.txt'))).toBe(true)
    const retries = result.stdout.split('\n').filter((l) => l.includes('retrying in'))
    if (e.at === 'parse') {
      // The parse's retries are its own (the task is not running yet): it was a real parse, not the template
      // that a failed parse falls back to.
      expect(retries).toEqual([])
      expect(result.stdout).not.toContain('kept as written')
    } else {
      // Exponential backoff from 500 ms (±20 %) when the service named no wait, else the wait it named.
      const delay = e.waitMs === undefined ? '0\\.[4-6]' : String(e.waitMs / 1000)
      expect(retries).toHaveLength(1)
      expect(retries[0]).toMatch(
        new RegExp(`retrying in ${delay} s \\(${e.reason.replace(/[()]/g, '\\$&')}\\)`),
      )
    }
    // The same request was repeated once, no sooner than the wait.
    expect(at).toHaveLength(2)
    expect(at[1]! - at[0]!).toBeGreaterThanOrEqual(e.waitMs ?? 400)
    const calls = modelCalls(t.server, c)
    expect(calls).toHaveLength(3)
    const [failed, repeated] = e.at === 'parse' ? [calls[0]!, calls[1]!] : [calls[1]!, calls[2]!]
    expect(repeated.body).toEqual(failed.body)
  })
})

const overflow: { name: string; provider: ProviderCase['provider']; error: ScriptedReply }[] = [
  {
    name: 'Anthropic "prompt is too long: N tokens > M maximum" (400)',
    provider: 'anthropic',
    error: anthropicErrors.promptTooLong(212_345, 200_000),
  },
  {
    name: 'OpenAI Responses context_length_exceeded (400)',
    provider: 'openai',
    error: responsesErrors.contextLengthExceeded(),
  },
]

describe.each(overflow)('$name', { timeout: 120_000 }, (e) => {
  const c = provider(e.provider)
  const t = useServer(c)

  it('ends the iteration with a checkpoint, and the next iteration starts smaller from it: not a failed task', async () => {
    t.server.enqueue(
      parsed({ type: 'bugfix', title: 'Write done.txt' }),
      tools(['write_file', { path: 'notes.txt', content: 'notes\n'.repeat(50) }]),
      tools(['read_file', { path: 'notes.txt' }]),
      e.error,
      finish,
    )
    const result = await t.run(true)
    expect(result.code, result.stderr + result.stdout.slice(-2000)).toBe(0)
    const events = ndjson<Event>(result.stdout)
    const checkpoint = events.find((x) => x.type === 'checkpoint.written')
    expect(checkpoint).toMatchObject({ reason: 'context-error', by: 'harness', iteration: 1 })
    expect(events.filter((x) => x.type === 'iteration.started').map((x) => x.iteration)).toEqual([1, 2])
    expect(events.at(-1)).toMatchObject({ type: 'task.completed', postTag: 'task-1-post' })
    expect(existsSync(join(t.project.path, 'done.txt'))).toBe(true)

    // parse, two steps, the refused one, then iteration 2's first step.
    const calls = modelCalls(t.server, c)
    expect(calls.map((r) => r.status)).toEqual([200, 200, 200, 400, 200])
    const refused = JSON.stringify(calls[3]!.body)
    const next = JSON.stringify(calls[4]!.body)
    expect(next.length).toBeLessThan(refused.length)
    // The next iteration knows what was done: the checkpoint names the file the first one wrote.
    expect(checkpoint!.text).toContain('notes.txt')
    expect(next).toContain('The provider refused the next request')
    expect(result.stdout).not.toMatch(/"type":"task.failed"/)
  })
})

describe('OpenAI 429 insufficient_quota (no credit left)', { timeout: 120_000 }, () => {
  const c = provider('openai')
  const t = useServer(c)

  it('is not retried or waited for: the task stops at once and says why', async () => {
    t.server.enqueue(parsed({ type: 'bugfix', title: 'Write done.txt' }), {
      kind: 'error',
      status: 429,
      body: openAiErrorBody(
        'You exceeded your current quota, please check your plan and billing details.',
        'insufficient_quota',
        null,
        'insufficient_quota',
      ),
    })
    const result = await t.run(false)
    expect(result.code).toBe(5)
    expect(result.stdout).toContain('no credit left (429 insufficient_quota)')
    expect(result.stdout).not.toContain('retrying in')
    expect(modelCalls(t.server, c).map((r) => r.status)).toEqual([200, 429])
  })
})

describe('Anthropic overloaded inside the stream of a verification', { timeout: 120_000 }, () => {
  const c = provider('anthropic')
  const t = useServer(c)

  it("is retried, and the LLM criterion's verdict still decides the build", async () => {
    writeFileSync(join(t.project.path, 'spec.md'), '# Hello\n')
    await setSpec({ projectDir: t.project.path, spec: 'spec.md', options })
    const id = (
      await addTask({
        projectDir: t.project.path,
        name: 'Write hello.txt',
        notes: 'Greet the world in hello.txt.',
        accept: ['LLM: hello.txt greets the world by name'],
        options,
      })
    ).ids[0]!
    t.server.enqueue(...writeAttempt('hello.txt', 'hello world'), anthropicErrors.overloadedInStream(), {
      kind: 'verdict',
      answer: 'YES',
      reason: "hello.txt reads 'hello world'",
    })
    const env = providerEnv(c, t.server, t.home.path)
    const result = await runCli(['build', '--json', '--project', t.project.path], { env })
    expect(result.code, result.stderr + result.stdout.slice(-2000)).toBe(0)
    const events = ndjson<Event & { outcome?: string; accepted?: string[] }>(result.stdout)
    expect(events.find((x) => x.type === 'verify.completed')).toMatchObject({ outcome: 'PASS' })
    expect(events.at(-1)).toMatchObject({ type: 'build.finished', status: 'complete', accepted: [id] })
    // parse, the step, the verification met by the overload, and the same verification again.
    const calls = modelCalls(t.server, c)
    expect(calls.map((r) => r.status)).toEqual([200, 200, 200, 200])
    expect(calls[3]!.body).toEqual(calls[2]!.body)
  })
})
