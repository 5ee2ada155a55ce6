// What a model call used, read from its answer as the credential proxy passes it on (never buffered in front of
// the engine): Anthropic's Messages SSE (`message_start` holds the prompt's usage, `message_delta` the answer's) and
// OpenAI's Responses SSE (`response.completed`, `response.incomplete`, `response.failed` hold the whole usage), or
// the same services' JSON answers.
import type { BilledUsage } from '../llm'

/** The wire format of an engine's model calls: Claude Code speaks Anthropic's Messages API, Codex OpenAI's Responses. */
export type ModelWire = 'anthropic-messages' | 'openai-responses'

/** One call's usage as Ralph bills it (`inputTokens` counts ALL prompt tokens, as in pricing.ts), and its model. */
export interface CallUsage extends Required<BilledUsage> {
  model: string | null
}

/** A JSON answer larger than this is not read for its usage (a model's answer is a few hundred KB at most). */
const MAX_JSON_BYTES = 16 * 1024 * 1024
/** An SSE line longer than this is skipped (Responses' `response.completed` repeats the whole answer). */
const MAX_LINE_BYTES = 16 * 1024 * 1024

type Json = Record<string, unknown>
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v)
const count = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : 0)
const text = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null)

/** Anthropic's usage object: `input_tokens` is only the uncached part; the cache counts are added to it. */
function anthropicUsage(u: Json, into: CallUsage): void {
  const has = (k: string) => typeof u[k] === 'number'
  if (has('input_tokens')) into.inputTokens = count(u.input_tokens)
  if (has('cache_read_input_tokens')) into.cacheReadTokens = count(u.cache_read_input_tokens)
  if (has('cache_creation_input_tokens')) into.cacheWriteTokens = count(u.cache_creation_input_tokens)
  if (has('output_tokens')) into.outputTokens = count(u.output_tokens)
  const creation = u.cache_creation
  if (isObject(creation) && typeof creation.ephemeral_1h_input_tokens === 'number')
    into.cacheWrite1hTokens = count(creation.ephemeral_1h_input_tokens)
}

/** OpenAI's Responses usage: `input_tokens` is every prompt token, the cached ones among them. */
function responsesUsage(u: Json, into: CallUsage): void {
  into.inputTokens = count(u.input_tokens)
  into.outputTokens = count(u.output_tokens)
  const details = u.input_tokens_details
  into.cacheReadTokens = isObject(details) ? count(details.cached_tokens) : 0
}

const empty = (): CallUsage => ({
  model: null,
  inputTokens: 0,
  outputTokens: 0,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  cacheWrite1hTokens: 0,
})

/** Anthropic counts the prompt without its cache reads and writes; Ralph counts them all (pricing.ts). */
function billed(wire: ModelWire, u: CallUsage): CallUsage {
  if (wire !== 'anthropic-messages') return u
  return { ...u, inputTokens: u.inputTokens + u.cacheReadTokens + u.cacheWriteTokens }
}

/** Folds one event (an SSE `data:` payload, or a whole JSON answer) into the call's usage; true when it had some. */
function fold(wire: ModelWire, event: unknown, into: CallUsage): boolean {
  if (!isObject(event)) return false
  if (wire === 'anthropic-messages') {
    // `message_start` (its message), `message_delta` (top-level usage), or a JSON answer (a message itself).
    const message = event.type === 'message_start' && isObject(event.message) ? event.message : event
    into.model = text(message.model) ?? into.model
    const usage = event.type === 'message_delta' ? event.usage : message.usage
    if (!isObject(usage)) return false
    anthropicUsage(usage, into)
    return true
  }
  // `response.completed` / `.incomplete` / `.failed` carry the response; a JSON answer is the response itself.
  const response = isObject(event.response) ? event.response : event
  into.model = text(response.model) ?? into.model
  if (!isObject(response.usage)) return false
  responsesUsage(response.usage, into)
  return true
}

export interface UsageReader {
  /** A chunk of the answer's body, as it passes. */
  push(chunk: Buffer): void
  /** The answer ended (or was cut off): the usage read, or null when it said none. */
  end(): CallUsage | null
}

/**
 * Reads one answer's usage as its chunks pass. `contentType` says whether it streams (SSE) or is one JSON body.
 * Only what it needs is kept: the line being read of a stream, the body of a JSON answer (up to MAX_JSON_BYTES).
 */
export function usageReader(wire: ModelWire, contentType: string | undefined): UsageReader {
  const usage = empty()
  let seen = false
  if (!/text\/event-stream/i.test(contentType ?? '')) {
    const chunks: Buffer[] = []
    let size = 0
    return {
      push(chunk) {
        size += chunk.length
        if (size <= MAX_JSON_BYTES) chunks.push(chunk)
      },
      end() {
        if (size > MAX_JSON_BYTES) return null
        try {
          seen = fold(wire, JSON.parse(Buffer.concat(chunks).toString('utf8')), usage)
        } catch (err) {
          if (!(err instanceof SyntaxError)) throw err
          return null // not JSON (an HTML error page): no usage
        }
        return seen ? billed(wire, usage) : null
      },
    }
  }
  let line: Buffer[] = []
  let lineSize = 0
  const readLine = (raw: Buffer) => {
    const s = raw.toString('utf8').replace(/\r$/, '')
    // Only data lines that hold a usage are parsed: the rest (text deltas) pass untouched.
    if (!s.startsWith('data:') || !s.includes('"usage"')) return
    try {
      if (fold(wire, JSON.parse(s.slice(5)), usage)) seen = true
    } catch (err) {
      if (!(err instanceof SyntaxError)) throw err // a line that is not JSON holds no usage
    }
  }
  return {
    push(chunk) {
      let from = 0
      for (let nl = chunk.indexOf(10, from); nl !== -1; nl = chunk.indexOf(10, from)) {
        const piece = chunk.subarray(from, nl)
        if (lineSize + piece.length <= MAX_LINE_BYTES) readLine(Buffer.concat([...line, piece]))
        line = []
        lineSize = 0
        from = nl + 1
      }
      const rest = chunk.subarray(from)
      lineSize += rest.length
      if (lineSize <= MAX_LINE_BYTES) line.push(rest)
      else line = []
    },
    end() {
      if (line.length && lineSize <= MAX_LINE_BYTES) readLine(Buffer.concat(line))
      line = []
      return seen ? billed(wire, usage) : null
    },
  }
}
