import { APICallError } from 'ai'
import { describe, expect, it } from 'vitest'
import { AppError, isAppError } from '../../shared/errors'
import { classifyError, defaultRetryPolicy, parseRetryAfter, retryDelay, sleep, withRetry } from './retry'

const apiError = (statusCode: number | undefined, headers?: Record<string, string>) =>
  new APICallError({
    message: 'x',
    url: 'http://x',
    requestBodyValues: {},
    statusCode,
    responseHeaders: headers,
  })

describe('parseRetryAfter', () => {
  it('reads seconds, milliseconds and HTTP dates', () => {
    expect(parseRetryAfter({ 'retry-after': '2' })).toBe(2000)
    expect(parseRetryAfter({ 'Retry-After': '0.5' })).toBe(500)
    expect(parseRetryAfter({ 'retry-after-ms': '1500', 'retry-after': '9' })).toBe(1500)
    const now = Date.parse('2025-01-01T00:00:00Z')
    expect(parseRetryAfter({ 'retry-after': 'Wed, 01 Jan 2025 00:00:03 GMT' }, now)).toBe(3000)
    expect(parseRetryAfter({ 'retry-after': 'soon' })).toBeNull()
    expect(parseRetryAfter(undefined)).toBeNull()
  })
})

describe('classifyError', () => {
  it('retries 429, 5xx and network errors, never 4xx client errors', () => {
    expect(classifyError(apiError(429, { 'retry-after': '1' }))).toEqual({
      retry: true,
      reason: 'HTTP 429',
      retryAfterMs: 1000,
    })
    expect(classifyError(apiError(503)).retry).toBe(true)
    for (const status of [400, 401, 403, 404, 422]) expect(classifyError(apiError(status)).retry).toBe(false)
    expect(classifyError(Object.assign(new Error('reset'), { code: 'ECONNRESET' })).retry).toBe(true)
    expect(classifyError(new AppError('cancelled', 'x')).retry).toBe(false)
    expect(classifyError(new Error('bug')).retry).toBe(false)
  })

  it("retries Anthropic's 529 and an overload or server error sent inside a 200 stream", () => {
    expect(classifyError(apiError(529))).toMatchObject({ retry: true, reason: 'HTTP 529' })
    // What the AI SDK hands on for Anthropic's `event: error` and OpenAI's `error` event (plain objects).
    expect(classifyError({ type: 'overloaded_error', message: 'Overloaded' })).toEqual({
      retry: true,
      reason: 'stream error (overloaded_error)',
      retryAfterMs: null,
    })
    expect(classifyError({ type: 'api_error', message: 'Internal server error' }).retry).toBe(true)
    expect(
      classifyError({ message: 'x', code: 'server_error', statusCode: 500, isRetryable: true }).retry,
    ).toBe(true)
    expect(classifyError({ type: 'invalid_request_error', message: 'bad' }).retry).toBe(false)
    expect(classifyError({ type: 'weird_error', message: '?' }).retry).toBe(false)
  })

  it('does not retry a 429 that says the account is out of credit', () => {
    const quota = new APICallError({
      message: 'x',
      url: 'http://x',
      requestBodyValues: {},
      statusCode: 429,
      responseBody: JSON.stringify({
        error: { message: 'You exceeded your current quota', code: 'insufficient_quota' },
      }),
    })
    expect(classifyError(quota)).toEqual({
      retry: false,
      reason: 'HTTP 429 (insufficient_quota)',
      retryAfterMs: null,
    })
  })
})

describe('retryDelay', () => {
  it('grows exponentially from the base, capped, and lets Retry-After win (clipped)', () => {
    const p = { ...defaultRetryPolicy, jitter: 0 }
    expect([1, 2, 3, 4, 10].map((a) => retryDelay(p, a, null))).toEqual([500, 1000, 2000, 4000, 20_000])
    expect(retryDelay(p, 1, 7000)).toBe(7000)
    expect(retryDelay(p, 1, 3_600_000)).toBe(60_000)
    const jittered = { ...defaultRetryPolicy, jitter: 0.2 }
    expect(retryDelay(jittered, 1, null, () => 0)).toBe(400)
    expect(retryDelay(jittered, 1, null, () => 1)).toBe(600)
  })
})

describe('withRetry', () => {
  const policy = { ...defaultRetryPolicy, baseDelayMs: 1, jitter: 0 }
  const toFinalError = (err: unknown) => new AppError('provider', `final: ${(err as Error).message}`)

  it('stops at the first non-retryable error and converts it', async () => {
    let calls = 0
    const p = withRetry(
      async () => {
        calls++
        throw apiError(401)
      },
      { policy, signal: new AbortController().signal, toFinalError },
    )
    await expect(p).rejects.toThrow('final: x')
    expect(calls).toBe(1)
  })

  it('passes AppErrors through without retrying', async () => {
    const p = withRetry(
      async () => {
        throw new AppError('config', 'no')
      },
      { policy, signal: new AbortController().signal, toFinalError },
    )
    await expect(p).rejects.toMatchObject({ kind: 'config' })
  })

  it('sleep rejects with cancelled when aborted', async () => {
    const c = new AbortController()
    const p = sleep(10_000, c.signal)
    c.abort()
    const err = await p.catch((e: unknown) => e)
    expect(isAppError(err, 'cancelled')).toBe(true)
  })
})
