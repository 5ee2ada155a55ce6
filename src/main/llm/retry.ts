import { APICallError } from 'ai'
import { findCode, isQuotaExhausted, streamErrorOf } from './providerErrors'
import { parseRetryAfter } from './retryAfter'
import { usageLimitFrom } from './usageLimit'
import { AppError } from '../../shared/errors'

/** How a provider call is retried. Delays are exponential from `baseDelayMs`, with jitter, capped. */
export interface RetryPolicy {
  /** Retries after the first attempt (so `maxRetries: 4` means at most 5 requests). */
  maxRetries: number
  baseDelayMs: number
  maxDelayMs: number
  /** The longest a `Retry-After` header may make us wait; longer values are clipped to this. */
  maxRetryAfterMs: number
  /** 0 = none, 0.2 = ±20 % around the exponential delay. */
  jitter: number
}

export { parseRetryAfter } from './retryAfter'

export const defaultRetryPolicy: RetryPolicy = {
  maxRetries: 4,
  baseDelayMs: 500,
  maxDelayMs: 20_000,
  maxRetryAfterMs: 60_000,
  jitter: 0.2,
}

export function resolvePolicy(policy?: Partial<RetryPolicy>): RetryPolicy {
  return { ...defaultRetryPolicy, ...policy }
}

/** Thrown inside an attempt when a request went silent for too long; retried like a network error. */
export class ProviderTimeoutError extends Error {
  constructor(ms: number) {
    super(`no response for ${Math.round(ms / 1000)} s`)
    this.name = 'TimeoutError'
  }
}

const NETWORK_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_CLOSED',
])

export interface RetryDecision {
  retry: boolean
  /** Short words for logs and the onRetry callback, e.g. "HTTP 503" or "network error (ECONNRESET)". */
  reason: string
  retryAfterMs: number | null
}

const retryableStatus = (status: number) =>
  status === 408 || status === 409 || status === 429 || status >= 500

/**
 * 429, 408, 409, 5xx (Anthropic's 529 "overloaded" included), network errors and timeouts are worth another try,
 * and so is the same error sent as an event inside a 200 stream; 4xx client errors never are, nor is a 429 that
 * says the account is out of credit.
 */
export function classifyError(err: unknown): RetryDecision {
  if (err instanceof AppError) return { retry: false, reason: err.kind, retryAfterMs: null }
  if (err instanceof ProviderTimeoutError)
    return { retry: true, reason: `timeout (${err.message})`, retryAfterMs: null }
  if (APICallError.isInstance(err)) {
    const status = err.statusCode
    const retryAfterMs = parseRetryAfter(err.responseHeaders)
    if (isQuotaExhausted(err))
      return { retry: false, reason: 'HTTP 429 (insufficient_quota)', retryAfterMs: null }
    if (status !== undefined) {
      const retry = retryableStatus(status)
      return { retry, reason: `HTTP ${status}`, retryAfterMs: retry ? retryAfterMs : null }
    }
    const code = findCode(err)
    return { retry: err.isRetryable, reason: `network error${code ? ` (${code})` : ''}`, retryAfterMs: null }
  }
  const code = findCode(err)
  if (code && NETWORK_CODES.has(code))
    return { retry: true, reason: `network error (${code})`, retryAfterMs: null }
  if ((err as Error)?.name === 'TimeoutError') return { retry: true, reason: 'timeout', retryAfterMs: null }
  const streamed = streamErrorOf(err)
  if (streamed) {
    // The SDK's own verdict (OpenAI sets `isRetryable`) where it gave one, else the status the error type has.
    const sdk = (err as { isRetryable?: unknown }).isRetryable
    const retry =
      typeof sdk === 'boolean' ? sdk : streamed.status !== undefined && retryableStatus(streamed.status)
    return { retry, reason: `stream error (${streamed.type})`, retryAfterMs: null }
  }
  if (err instanceof TypeError && /fetch failed|terminated|socket/i.test(err.message)) {
    return { retry: true, reason: `network error (${err.message})`, retryAfterMs: null }
  }
  return { retry: false, reason: err instanceof Error ? err.name : 'error', retryAfterMs: null }
}

/** The wait before retry number `attempt` (1-based). A server's Retry-After wins over our own schedule. */
export function retryDelay(
  policy: RetryPolicy,
  attempt: number,
  retryAfterMs: number | null,
  random: () => number = Math.random,
): number {
  if (retryAfterMs !== null) return Math.min(retryAfterMs, policy.maxRetryAfterMs)
  const exp = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1))
  const jittered = exp * (1 - policy.jitter + 2 * policy.jitter * random())
  return Math.round(Math.min(policy.maxDelayMs, Math.max(0, jittered)))
}

export function cancelledError(): AppError {
  return new AppError('cancelled', 'The model call was cancelled.')
}

/** Waits `ms`, or rejects with AppError('cancelled') as soon as `signal` aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(cancelledError())
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer)
      reject(cancelledError())
    }
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    signal.addEventListener('abort', onAbort, { once: true })
  })
}

export interface RetryOptions {
  policy: RetryPolicy
  signal: AbortSignal
  onRetry?: (info: { attempt: number; delayMs: number; reason: string }) => void
  /** Turns the final, non-retried error into an AppError. AppErrors thrown by `fn` pass through untouched. */
  toFinalError: (err: unknown) => AppError
}

/**
 * Runs `fn` until it succeeds, a non-retryable error occurs, or the retries are used up. A 429 whose reset is
 * longer than `policy.maxRetryAfterMs` rejects at once with a UsageLimitError (see usageLimit.ts). `fn` signals "do not
 * retry this" by throwing an AppError. Cancellation always wins and rejects with AppError('cancelled').
 */
export async function withRetry<T>(fn: (attempt: number) => Promise<T>, opts: RetryOptions): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    if (opts.signal.aborted) throw cancelledError()
    try {
      return await fn(attempt)
    } catch (err) {
      if (opts.signal.aborted) throw cancelledError()
      if (err instanceof AppError) throw err
      // A reset beyond what we retry for is a usage limit: the caller decides whether to wait for it.
      const limit = usageLimitFrom(err, opts.policy.maxRetryAfterMs)
      if (limit) throw limit
      const decision = classifyError(err)
      if (!decision.retry || attempt >= opts.policy.maxRetries) throw opts.toFinalError(err)
      const delayMs = retryDelay(opts.policy, attempt + 1, decision.retryAfterMs)
      opts.onRetry?.({ attempt: attempt + 1, delayMs, reason: decision.reason })
      await sleep(delayMs, opts.signal)
    }
  }
}
