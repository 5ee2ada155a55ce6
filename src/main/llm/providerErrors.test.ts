import { APICallError } from 'ai'
import { describe, expect, it } from 'vitest'
import { describeProviderError, isContextLengthError, streamErrorOf } from './providerErrors'

const target = { provider: 'anthropic', model: 'claude-sonnet-4-5' }

const apiError = (statusCode: number, body: unknown) =>
  new APICallError({
    message: 'x',
    url: 'http://x',
    requestBodyValues: {},
    statusCode,
    responseBody: JSON.stringify(body),
  })

// The objects the AI SDK hands on for an error event inside a 200 stream (not APICallErrors).
const anthropicOverloadedEvent = { type: 'overloaded_error', message: 'Overloaded' }
const openAiServerErrorEvent = {
  message: 'The server had an error while processing your request.',
  type: 'server_error',
  code: 'server_error',
  statusCode: 500,
  isRetryable: true,
  data: { type: 'error', code: 'server_error' },
}

describe('streamErrorOf', () => {
  it('reads Anthropic and OpenAI stream error events, with the status each has outside a stream', () => {
    expect(streamErrorOf(anthropicOverloadedEvent)).toEqual({
      status: 529,
      type: 'overloaded_error',
      message: 'Overloaded',
    })
    expect(streamErrorOf({ type: 'error', error: { type: 'api_error', message: 'boom' } })).toMatchObject({
      status: 500,
      type: 'api_error',
    })
    expect(streamErrorOf(openAiServerErrorEvent)).toMatchObject({ status: 500, type: 'server_error' })
    expect(streamErrorOf(new Error('x'))).toBeNull()
    expect(streamErrorOf('text')).toBeNull()
    expect(streamErrorOf({})).toBeNull()
  })
})

describe('describeProviderError', () => {
  it('says what an in-stream error was instead of [object Object]', () => {
    const text = describeProviderError(anthropicOverloadedEvent, target)
    expect(text).toContain('overloaded (529)')
    expect(text).toContain('The provider said: Overloaded')
    expect(text).not.toContain('[object Object]')
    expect(describeProviderError(openAiServerErrorEvent, target)).toContain('failed with an error (500)')
  })

  it('names the 529 overload of a plain response', () => {
    const err = apiError(529, { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } })
    expect(describeProviderError(err, target)).toBe(
      'The provider is overloaded (529). Try again in a few minutes. The provider said: Overloaded',
    )
  })
})

describe('an account out of credit', () => {
  it('says so instead of asking to wait', () => {
    const quota = apiError(429, {
      error: {
        message: 'You exceeded your current quota.',
        type: 'insufficient_quota',
        code: 'insufficient_quota',
      },
    })
    expect(describeProviderError(quota, target)).toContain('no credit left (429 insufficient_quota)')
    expect(describeProviderError(apiError(429, { error: { message: 'slow down' } }), target)).toContain(
      'rate-limiting',
    )
  })
})

describe('isContextLengthError', () => {
  it("knows Anthropic's 'prompt is too long' and OpenAI's context_length_exceeded", () => {
    const anthropic = apiError(400, {
      type: 'error',
      error: { type: 'invalid_request_error', message: 'prompt is too long: 210000 tokens > 200000 maximum' },
    })
    const openai = apiError(400, {
      error: {
        message:
          'Your input exceeds the context window of this model. Please adjust your input and try again.',
        type: 'invalid_request_error',
        param: 'input',
        code: 'context_length_exceeded',
      },
    })
    expect(isContextLengthError(anthropic)).toBe(true)
    const tooLarge = apiError(413, {
      type: 'error',
      error: { type: 'request_too_large', message: 'Request exceeds the maximum allowed number of bytes.' },
    })
    expect(isContextLengthError(tooLarge)).toBe(true)
    expect(isContextLengthError(openai)).toBe(true)
    expect(
      isContextLengthError({ type: 'error', code: 'context_length_exceeded', message: 'too long' }),
    ).toBe(true)
  })

  it('is not fooled by other 400s or by an overload', () => {
    expect(isContextLengthError(apiError(400, { error: { message: 'max_tokens: Field required' } }))).toBe(
      false,
    )
    expect(isContextLengthError(apiError(529, { error: { message: 'Overloaded' } }))).toBe(false)
    expect(isContextLengthError(anthropicOverloadedEvent)).toBe(false)
  })
})
