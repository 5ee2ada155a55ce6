import type { EngineEvent, EngineStreamParser } from '../types'
import { epochMs, isUsageLimitMessage, parseResetAt } from './limits'
import { toolCall } from './tools'

// Reads `claude -p --output-format stream-json --verbose --include-partial-messages` (one JSON object a line):
//
// | line                                                        | event                                           |
// | ----------------------------------------------------------- | ----------------------------------------------- |
// | `system` / `init`                                           | init (model, session_id, claude_code_version)   |
// | `stream_event` `content_block_delta` `text_delta` (main)    | text (the delta)                                |
// | `assistant` text block, only when its message streamed none | text (the whole block: partial messages off)    |
// | `assistant` `tool_use` + later `user` `tool_result`         | tool (Ralph's name and shape: ./tools.ts)        |
// | `stream_event` `message_start` + `message_delta`            | usage per model call (costUsd 0, see below)     |
// | `rate_limit_event` with `status: "rejected"`                | (remembered: the reset time of a later limit)   |
// | `result` `success`, not `is_error`                          | usage correction, then done (`result`)          |
// | `result` error: a usage limit / 429                         | usage correction, then limit (resetAt: the      |
// |                                                             | rejected event's, else parsed from the message) |
// | `result` error: 401, "Invalid API key", "Please run /login" | failure not-logged-in                           |
// | `result` error: another API error                           | failure provider                                |
// | `result` error_during_execution, error_max_turns …          | failure crash                                   |
// | no `result` when the process ends                           | failure crash (or not-logged-in / version / limit, read from stderr) |
// Everything else (`status`, `api_retry`, hook and subagent progress lines, thinking deltas …) is not an event.
//
// Cost, counted once: each model call's `usage` event carries its tokens as they happen (the card's live counts)
// with `costUsd: 0`, because Claude Code prices nothing per call in its stream. The `result` line's `modelUsage`
// then gives each model's exact totals and cost (`costUSD`, summing to `total_cost_usd`): one more `usage` event per
// model carries the tokens the per-call events missed (a subagent's calls are not streamed) and that model's whole
// cost. So the events' tokens add up to Claude Code's totals and their costs to `total_cost_usd`, exactly; nothing is
// priced by Ralph, nothing twice. A session killed before its `result` has its tokens but no cost (Claude Code never
// said it).

type Json = Record<string, unknown>
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v)
const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0)
const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null)

interface Tokens {
  input: number
  output: number
  cacheRead: number
  cacheWrite: number
  /** Of `cacheWrite`: written for one hour (`cache_creation.ephemeral_1h_input_tokens`), billed at its own rate. */
  cacheWrite1h: number
}

/** The 1-hour part of a call's cache writes (Anthropic's `cache_creation` breakdown), never more than them all. */
function oneHourWrites(u: Json, cacheWrite: number): number {
  const split = isObject(u.cache_creation) ? u.cache_creation : {}
  return Math.min(cacheWrite, num(split.ephemeral_1h_input_tokens))
}

function tokensOf(usage: unknown): Tokens {
  const u = isObject(usage) ? usage : {}
  const cacheWrite = num(u.cache_creation_input_tokens)
  return {
    input: num(u.input_tokens),
    output: num(u.output_tokens),
    cacheRead: num(u.cache_read_input_tokens),
    cacheWrite,
    cacheWrite1h: oneHourWrites(u, cacheWrite),
  }
}

const ZERO: Tokens = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cacheWrite1h: 0 }
const add = (a: Tokens, b: Tokens): Tokens => ({
  input: a.input + b.input,
  output: a.output + b.output,
  cacheRead: a.cacheRead + b.cacheRead,
  cacheWrite: a.cacheWrite + b.cacheWrite,
  cacheWrite1h: a.cacheWrite1h + b.cacheWrite1h,
})

function usageEvent(model: string | null, t: Tokens, costUsd: number): EngineEvent {
  return {
    type: 'usage',
    model,
    // Ralph's inputTokens are ALL prompt tokens (the AI SDK's meaning); Anthropic's input_tokens is the uncached part.
    inputTokens: t.input + t.cacheRead + t.cacheWrite,
    outputTokens: t.output,
    cacheReadTokens: t.cacheRead,
    cacheWriteTokens: t.cacheWrite,
    ...(t.cacheWrite1h > 0 ? { cacheWrite1hTokens: t.cacheWrite1h } : {}),
    reasoningTokens: 0,
    costUsd,
  }
}

/** "Claude AI usage limit reached|1750000000" → "Claude AI usage limit reached": the reset is said elsewhere. */
const readableLimit = (message: string) => message.replace(/\|\d{9,}\s*$/, '').trim()

const AUTH =
  /invalid api key|invalid x-api-key|please run \/login|not logged in|log ?in again|authentication_error|authentication failed|oauth token (?:has )?(?:expired|been revoked|revoked)|\b401\b/i
const NO_CREDIT = /credit balance is too low/i
/** Claude Code's error notices (the `error` of its synthetic assistant message) that mean the login is missing or bad. */
const LOGIN_KINDS = new Set([
  'authentication_failed',
  'oauth_org_not_allowed',
  'verification_required',
  'cloud_credential_error',
])
const BAD_FLAG = /unknown option|unknown argument|unrecognized option|error: option '[^']+' argument/i

/** The last part of a text (a stderr's tail). */
function tail(text: string, max = 1500): string {
  const t = text.trim()
  return t.length > max ? `…${t.slice(-max)}` : t
}

class ClaudeCodeParser implements EngineStreamParser {
  private finished = false
  private initSeen = false
  /** Calls waiting for their result, by id. */
  private readonly pending = new Map<string, { name: string; input: unknown }>()
  /** Messages whose text came as deltas (their `assistant` lines' text is not repeated). */
  private readonly streamed = new Set<string>()
  /** Messages whose text came whole from an `assistant` line (their deltas, if late, are not repeated). */
  private readonly wholeText = new Set<string>()
  /** Each streamed model call's usage, from `message_start` until its `message_delta`. */
  private readonly calls = new Map<string, { model: string | null; start: Tokens }>()
  /** Tokens already reported per model, for the `result` line's correction. */
  private readonly reported = new Map<string, Tokens>()
  private rejectedResetAt: number | null = null
  /** The kind of Claude Code's last error notice (`authentication_failed`, `rate_limit`, `billing_error` …). */
  private errorKind: string | null = null
  private readonly noise: string[] = []

  constructor(private readonly projectDir: string) {}

  line(raw: string): EngineEvent[] {
    const text = raw.trim()
    if (!text) return []
    let data: unknown
    try {
      data = JSON.parse(text)
    } catch (err) {
      if (!(err instanceof SyntaxError)) throw err
      // Not a stream line (a warning printed to stdout): kept for a crash message.
      this.noise.push(text)
      if (this.noise.length > 20) this.noise.shift()
      return []
    }
    if (!isObject(data) || this.finished) return []
    switch (data.type) {
      case 'system':
        return this.system(data)
      case 'stream_event':
        return this.streamEvent(data)
      case 'assistant':
        return this.assistant(data)
      case 'user':
        return this.user(data)
      case 'rate_limit_event':
        this.rateLimit(data)
        return []
      case 'result':
        return this.result(data)
      default:
        return []
    }
  }

  private system(data: Json): EngineEvent[] {
    if (data.subtype !== 'init' || this.initSeen) return []
    this.initSeen = true
    return [
      {
        type: 'init',
        model: str(data.model),
        sessionId: str(data.session_id),
        version: str(data.claude_code_version),
      },
    ]
  }

  private streamEvent(data: Json): EngineEvent[] {
    const event = isObject(data.event) ? data.event : {}
    const main = data.parent_tool_use_id === null || data.parent_tool_use_id === undefined
    if (event.type === 'message_start' && isObject(event.message)) {
      const id = str(event.message.id) ?? str(data.api_message_id)
      if (id) this.calls.set(id, { model: str(event.message.model), start: tokensOf(event.message.usage) })
      return []
    }
    const id = str(data.api_message_id) ?? [...this.calls.keys()].at(-1) ?? null
    if (event.type === 'content_block_delta' && isObject(event.delta)) {
      const delta = event.delta
      if (delta.type !== 'text_delta' || typeof delta.text !== 'string' || delta.text === '' || !main)
        return []
      if (id && this.wholeText.has(id)) return []
      if (id) this.streamed.add(id)
      return [{ type: 'text', text: delta.text }]
    }
    if (event.type === 'message_delta' && id) return this.callUsage(id, event.usage)
    return []
  }

  /** One model call's usage: input and cache from its start, output (and any updated counts) from its end. */
  private callUsage(id: string, endUsage: unknown): EngineEvent[] {
    const call = this.calls.get(id)
    if (!call) return []
    this.calls.delete(id)
    const end = isObject(endUsage) ? endUsage : {}
    const pick = (key: string, fallback: number) => (typeof end[key] === 'number' ? num(end[key]) : fallback)
    const cacheWrite = pick('cache_creation_input_tokens', call.start.cacheWrite)
    const t: Tokens = {
      input: pick('input_tokens', call.start.input),
      output: pick('output_tokens', call.start.output),
      cacheRead: pick('cache_read_input_tokens', call.start.cacheRead),
      cacheWrite,
      cacheWrite1h: isObject(end.cache_creation)
        ? oneHourWrites(end, cacheWrite)
        : Math.min(cacheWrite, call.start.cacheWrite1h),
    }
    const key = call.model ?? ''
    this.reported.set(key, add(this.reported.get(key) ?? ZERO, t))
    return [usageEvent(call.model, t, 0)]
  }

  private assistant(data: Json): EngineEvent[] {
    const message = isObject(data.message) ? data.message : {}
    const content = Array.isArray(message.content) ? message.content.filter(isObject) : []
    const id = str(message.id)
    // Claude Code's own error notices ("Invalid API key · …", "API Error: …") come as a synthetic assistant message
    // with `error` set; the `result` line that follows says the same, so they are not the answer's text.
    const synthetic = data.error !== undefined || message.model === '<synthetic>'
    if (typeof data.error === 'string') this.errorKind = data.error
    const main = data.parent_tool_use_id === null || data.parent_tool_use_id === undefined
    const events: EngineEvent[] = []
    for (const block of content) {
      if (block.type === 'tool_use' && typeof block.id === 'string' && typeof block.name === 'string') {
        this.pending.set(block.id, { name: block.name, input: block.input })
      } else if (block.type === 'text' && typeof block.text === 'string' && block.text !== '') {
        if (synthetic || !main || (id && this.streamed.has(id))) continue
        if (id) this.wholeText.add(id)
        events.push({ type: 'text', text: block.text })
      }
    }
    return events
  }

  private user(data: Json): EngineEvent[] {
    const message = isObject(data.message) ? data.message : {}
    const content = Array.isArray(message.content) ? message.content.filter(isObject) : []
    const events: EngineEvent[] = []
    for (const block of content) {
      if (block.type !== 'tool_result' || typeof block.tool_use_id !== 'string') continue
      const use = this.pending.get(block.tool_use_id)
      if (!use) continue
      this.pending.delete(block.tool_use_id)
      events.push({
        type: 'tool',
        call: toolCall(this.projectDir, { id: block.tool_use_id, ...use }, block as never),
      })
    }
    return events
  }

  private rateLimit(data: Json): void {
    const info = isObject(data.rate_limit_info) ? data.rate_limit_info : {}
    if (info.status === 'rejected' && typeof info.resetsAt === 'number')
      this.rejectedResetAt = epochMs(info.resetsAt)
  }

  /** The tokens each model's per-call events missed and its whole cost, from the `result` line. */
  private correction(data: Json): EngineEvent[] {
    const table = isObject(data.modelUsage) ? data.modelUsage : {}
    const models = Object.entries(table).flatMap(([model, v]) =>
      isObject(v)
        ? [
            {
              model,
              cost: num(v.costUSD),
              total: {
                input: num(v.inputTokens),
                output: num(v.outputTokens),
                cacheRead: num(v.cacheReadInputTokens),
                cacheWrite: num(v.cacheCreationInputTokens),
                // The result's table does not split its writes: the streamed calls said which were 1-hour ones.
                cacheWrite1h: 0,
              },
            },
          ]
        : [],
    )
    // Per model when the streamed calls' model names are the table's; otherwise (a dated name streamed, say) the
    // session's whole difference at once, so no token is counted twice.
    const matched = [...this.reported.keys()].every((key) => models.some((m) => m.model === key))
    const rows = matched
      ? models.map((m) => ({ ...m, seen: this.reported.get(m.model) ?? ZERO }))
      : [
          {
            model: models.length === 1 ? models[0]!.model : null,
            cost: models.length ? models.reduce((s, m) => s + m.cost, 0) : num(data.total_cost_usd),
            total: models.reduce((s, m) => add(s, m.total), ZERO),
            seen: [...this.reported.values()].reduce(add, ZERO),
          },
        ]
    // An older stream with no per-model table: the session's total cost alone.
    if (models.length === 0)
      rows.splice(0, rows.length, { model: null, cost: num(data.total_cost_usd), total: ZERO, seen: ZERO })
    const events: EngineEvent[] = []
    for (const row of rows) {
      const rest: Tokens = {
        input: Math.max(0, row.total.input - row.seen.input),
        output: Math.max(0, row.total.output - row.seen.output),
        cacheRead: Math.max(0, row.total.cacheRead - row.seen.cacheRead),
        cacheWrite: Math.max(0, row.total.cacheWrite - row.seen.cacheWrite),
        cacheWrite1h: 0,
      }
      if (row.cost > 0 || rest.input + rest.output + rest.cacheRead + rest.cacheWrite > 0)
        events.push(usageEvent(row.model, rest, row.cost))
    }
    return events
  }

  private result(data: Json): EngineEvent[] {
    this.finished = true
    const events = this.correction(data)
    const answer = typeof data.result === 'string' ? data.result : null
    if (data.subtype === 'success' && data.is_error !== true) {
      events.push({ type: 'done', text: answer })
      return events
    }
    const errors = Array.isArray(data.errors) ? data.errors.filter((e) => typeof e === 'string') : []
    const message =
      str(answer) ?? (errors.length ? errors.join('; ') : `Claude Code ended: ${String(data.subtype)}`)
    events.push(this.classify(message, data))
    return events
  }

  /** A failed `result`: a usage limit, a missing login, the API's failure, or Claude Code's own. */
  private classify(message: string, data: Json): EngineEvent {
    const status = typeof data.api_error_status === 'number' ? data.api_error_status : null
    const type = str(data.api_error_type)
    const kind = this.errorKind
    if (
      (kind !== null && LOGIN_KINDS.has(kind)) ||
      status === 401 ||
      type === 'authentication_error' ||
      AUTH.test(message)
    )
      return { type: 'failure', kind: 'not-logged-in', message }
    if (NO_CREDIT.test(message)) return { type: 'failure', kind: 'provider', message }
    // The rejected window's own reset (epoch seconds) is exact; the message's "resets 5:09am (UTC)" is to the minute.
    // A billing error is a limit only when it says it resets ("spend limit reached · resets Aug 8").
    const limited =
      kind === 'rate_limit' || status === 429 || type === 'rate_limit_error' || isUsageLimitMessage(message)
    if (limited && (kind !== 'billing_error' || parseResetAt(message) !== null))
      return {
        type: 'limit',
        message: readableLimit(message),
        resetAt: this.rejectedResetAt ?? parseResetAt(message),
      }
    if (
      kind !== null ||
      status !== null ||
      type !== null ||
      data.terminal_reason === 'api_error' ||
      /API Error/i.test(message)
    )
      return { type: 'failure', kind: 'provider', message }
    return { type: 'failure', kind: 'crash', message }
  }

  end(exit: { code: number | null; signal: string | null; stderr: string }): EngineEvent[] {
    if (this.finished) return []
    this.finished = true
    const stderr = tail([exit.stderr, ...this.noise].filter(Boolean).join('\n'))
    if (BAD_FLAG.test(stderr))
      return [
        {
          type: 'failure',
          kind: 'version',
          message: `This Claude Code does not accept the options Ralph starts it with: ${stderr}`,
        },
      ]
    if (AUTH.test(stderr)) return [{ type: 'failure', kind: 'not-logged-in', message: stderr }]
    if (isUsageLimitMessage(stderr))
      return [{ type: 'limit', message: stderr, resetAt: this.rejectedResetAt ?? parseResetAt(stderr) }]
    // Inside bubblewrap a signal reaches us as the exit code 128 + its number.
    const signalled = exit.code !== null && exit.code > 128 && exit.code < 160 ? exit.code - 128 : null
    const how = exit.signal
      ? `was stopped by ${exit.signal}`
      : signalled !== null
        ? `was killed (signal ${signalled}, exit code ${String(exit.code)})`
        : `exited with code ${String(exit.code)}`
    return [
      {
        type: 'failure',
        kind: 'crash',
        message: `Claude Code ${how} before finishing its session.${stderr ? ` Its last output: ${stderr}` : ''}`,
      },
    ]
  }
}

export function createClaudeCodeParser(ctx: { projectDir: string }): EngineStreamParser {
  return new ClaudeCodeParser(ctx.projectDir)
}
