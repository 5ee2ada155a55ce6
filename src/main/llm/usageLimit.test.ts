import { APICallError } from 'ai'
import { describe, expect, it } from 'vitest'
import { AppError } from '../../shared/errors'
import { withRetry } from './retry'
import { limitResetMs, parseDuration, usageLimitFrom, UsageLimitError } from './usageLimit'

const now = Date.parse('2026-01-01T00:00:00Z')

function http(status: number, headers: Record<string, string> = {}, body: unknown = {}): APICallError {
  return new APICallError({
    message: `HTTP ${status}`,
    url: 'http://x/v1/chat/completions',
    requestBodyValues: {},
    statusCode: status,
    responseHeaders: headers,
    responseBody: JSON.stringify(body),
  })
}

describe('usage limits', () => {
  it('reads the reset from Retry-After, rate-limit headers, the JSON body or a sentence', () => {
    expect(limitResetMs(http(429, { 'retry-after': '7200' }), now)).toBe(7_200_000)
    expect(
      limitResetMs(
        http(429, { 'x-ratelimit-reset-tokens': '6m0s', 'x-ratelimit-reset-requests': '1s' }),
        now,
      ),
    ).toBe(360_000)
    expect(limitResetMs(http(429, { 'anthropic-ratelimit-tokens-reset': '2026-01-01T02:00:00Z' }), now)).toBe(
      7_200_000,
    )
    expect(limitResetMs(http(429, {}, { error: { resets_at: now / 1000 + 3600 } }), now)).toBe(3_600_000)
    expect(
      limitResetMs(http(429, {}, { error: { message: 'Limit reached. Please try again in 2h30m.' } }), now),
    ).toBe(9_000_000)
    expect(limitResetMs(http(429), now)).toBeNull()
    expect(limitResetMs(http(503, { 'retry-after': '7200' }), now)).toBeNull()
    expect(parseDuration('1h2m3.5s')).toBe(3_723_500)
    expect(parseDuration('soon')).toBeNull()
  })

  it('is a usage limit only past the retry cap', () => {
    expect(usageLimitFrom(http(429, { 'retry-after': '30' }), 60_000, now)).toBeNull()
    const limit = usageLimitFrom(
      http(429, { 'retry-after': '120' }, { error: { message: 'Quota' } }),
      60_000,
      now,
    )
    expect(limit).toBeInstanceOf(UsageLimitError)
    expect(limit).toMatchObject({
      resetAt: now + 120_000,
      waitMs: 120_000,
      providerMessage: 'Quota',
      kind: 'provider',
    })
  })

  it('makes withRetry reject at once instead of retrying a long reset', async () => {
    let calls = 0
    const run = withRetry(
      () => {
        calls++
        return Promise.reject(http(429, { 'retry-after': '3600' }))
      },
      {
        policy: { maxRetries: 4, baseDelayMs: 1, maxDelayMs: 1, maxRetryAfterMs: 1000, jitter: 0 },
        signal: new AbortController().signal,
        toFinalError: () => new AppError('provider', 'final'),
      },
    )
    await expect(run).rejects.toBeInstanceOf(UsageLimitError)
    expect(calls).toBe(1)
  })
})

describe('an account out of credit', () => {
  const quota = http(
    429,
    { 'x-ratelimit-reset-requests': '3h' },
    {
      error: {
        message: 'You exceeded your current quota, please check your plan and billing details.',
        type: 'insufficient_quota',
        param: null,
        code: 'insufficient_quota',
      },
    },
  )

  it('is not a usage limit to wait for, and is not retried: it fails at once in words', async () => {
    expect(usageLimitFrom(quota, 60_000, now)).toBeNull()
    let attempts = 0
    const failed = await withRetry(
      () => {
        attempts++
        return Promise.reject(quota)
      },
      {
        policy: { maxRetries: 4, baseDelayMs: 1, maxDelayMs: 1, maxRetryAfterMs: 60_000, jitter: 0 },
        signal: new AbortController().signal,
        toFinalError: (err) => new AppError('provider', String((err as Error).message)),
      },
    ).catch((err: unknown) => err)
    expect(attempts).toBe(1)
    expect(failed).toBeInstanceOf(AppError)
    expect(failed).not.toBeInstanceOf(UsageLimitError)
  })
})
