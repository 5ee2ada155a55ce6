import { APICallError } from 'ai'
import { AppError } from '../../shared/errors'
import { isQuotaExhausted, providerMessage } from './providerErrors'
import { header, parseRetryAfter } from './retryAfter'
import { parseJsonOr } from '../../shared/json'

/**
 * A 429 whose reset lies beyond what the retry policy waits for: a subscription's or account's usage limit. The
 * loop waits for `resetAt` (cancellable) and repeats the same request, unless waiting is turned off.
 */
export class UsageLimitError extends AppError {
  constructor(
    readonly resetAt: number,
    readonly waitMs: number,
    readonly providerMessage: string | null,
  ) {
    super(
      'provider',
      `The provider's usage limit is reached (429) until ${new Date(resetAt).toISOString()}.` +
        (providerMessage ? ` The provider said: ${providerMessage}` : ''),
      { status: 429, resetAt: new Date(resetAt).toISOString() },
    )
    this.name = 'UsageLimitError'
  }
}

/** OpenAI's reset durations: "1s", "6m0s", "20ms", "1h2m3.5s". */
export function parseDuration(text: string): number | null {
  const re = /(\d+(?:\.\d+)?)\s*(ms|milliseconds?|h|hours?|hrs?|m|minutes?|mins?|s|seconds?|secs?)(?![a-z])/gi
  let total = 0
  let found = false
  for (const m of text.matchAll(re)) {
    found = true
    const n = Number(m[1])
    const unit = m[2]!.toLowerCase()
    if (unit.startsWith('ms') || unit.startsWith('milli')) total += n
    else if (unit.startsWith('h')) total += n * 3_600_000
    else if (unit.startsWith('m')) total += n * 60_000
    else total += n * 1000
  }
  return found ? Math.round(total) : null
}

/** A timestamp: ISO/RFC 3339 text, or epoch seconds/milliseconds. Returns ms from `now`, or null. */
function untilTimestamp(value: unknown, now: number): number | null {
  if (typeof value === 'number' && Number.isFinite(value)) {
    if (value > 1e12) return value - now
    if (value > 1e9) return value * 1000 - now
    return value * 1000 // a small number: seconds from now
  }
  if (typeof value === 'string' && value.trim()) {
    if (/^\d+(\.\d+)?$/.test(value.trim())) return untilTimestamp(Number(value), now)
    const date = Date.parse(value)
    if (!Number.isNaN(date)) return date - now
    return parseDuration(value)
  }
  return null
}

const RESET_HEADERS = [
  'x-ratelimit-reset-requests',
  'x-ratelimit-reset-tokens',
  'x-ratelimit-reset',
  'anthropic-ratelimit-requests-reset',
  'anthropic-ratelimit-tokens-reset',
  'anthropic-ratelimit-input-tokens-reset',
  'anthropic-ratelimit-output-tokens-reset',
  'ratelimit-reset',
]

const RESET_KEYS = new Set([
  'reset_at',
  'resets_at',
  'resetat',
  'reset_time',
  'resets_in',
  'reset',
  'retry_after',
])

/** Reset times anywhere in a JSON error body (`{ error: { resets_at } }`, `{ reset_at }` …). */
function bodyResets(body: unknown, now: number, depth = 0): number[] {
  if (!body || typeof body !== 'object' || depth > 3) return []
  const out: number[] = []
  for (const [key, value] of Object.entries(body as Record<string, unknown>)) {
    if (RESET_KEYS.has(key.toLowerCase())) {
      const ms = untilTimestamp(value, now)
      if (ms !== null) out.push(ms)
    } else if (value && typeof value === 'object') out.push(...bodyResets(value, now, depth + 1))
  }
  return out
}

/**
 * How long a 429 asks us to wait, in ms: `Retry-After` when present (it is the server's own answer), else the
 * longest reset found in the rate-limit headers, the JSON body, or a "try again in 2h" sentence. Null if none.
 */
export function limitResetMs(err: unknown, now: number = Date.now()): number | null {
  if (!APICallError.isInstance(err) || err.statusCode !== 429) return null
  const retryAfter = parseRetryAfter(err.responseHeaders, now)
  if (retryAfter !== null) return retryAfter
  const candidates: number[] = []
  for (const name of RESET_HEADERS) {
    const value = header(err.responseHeaders, name)
    const ms = value === undefined ? null : untilTimestamp(value, now)
    if (ms !== null) candidates.push(ms)
  }
  const body = err.responseBody ? parseJsonOr(err.responseBody, null) : null
  candidates.push(...bodyResets(body, now))
  const sentence = /(?:try again|retry|resets?)\s+(?:in|after)\s+([^.;,]+)/i.exec(
    providerMessage(err.responseBody) ?? '',
  )
  const fromText = sentence ? parseDuration(sentence[1]!) : null
  if (fromText !== null) candidates.push(fromText)
  const valid = candidates.filter((ms) => Number.isFinite(ms) && ms >= 0)
  return valid.length ? Math.max(...valid) : null
}

/** The UsageLimitError for a 429 whose reset is longer than `capMs`; null for anything else. */
export function usageLimitFrom(
  err: unknown,
  capMs: number,
  now: number = Date.now(),
): UsageLimitError | null {
  // No credit left is not a limit that resets: waiting for a reset header would wait for nothing.
  if (isQuotaExhausted(err)) return null
  const ms = limitResetMs(err, now)
  if (ms === null || ms <= capMs) return null
  const body = APICallError.isInstance(err) ? err.responseBody : undefined
  return new UsageLimitError(now + ms, ms, providerMessage(body))
}
